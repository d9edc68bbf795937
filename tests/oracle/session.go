package main

import (
	"context"
	"sort"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/record"

	schedulingscheme "volcano.sh/apis/pkg/apis/scheduling/scheme"
	vcv1beta1 "volcano.sh/apis/pkg/apis/scheduling/v1beta1"
	"volcano.sh/volcano/pkg/scheduler/api"
	"volcano.sh/volcano/pkg/scheduler/cache"
	"volcano.sh/volcano/pkg/scheduler/conf"
	"volcano.sh/volcano/pkg/scheduler/framework"
	"volcano.sh/volcano/pkg/scheduler/util"
)

// Volcano's cache sends binds and evictions to these from goroutines; the
// oracle reads the decisions from the cache's task states instead
// (synchronously, action by action), so both only accept.
type acceptBinder struct{}

func (acceptBinder) Bind(_ kubernetes.Interface, _ []*api.TaskInfo) map[api.TaskID]string {
	return nil
}

type acceptEvictor struct{}

func (acceptEvictor) Evict(*v1.Pod, string) error { return nil }

// statusWriter is the API server's side of the status updates Volcano makes
// at session close: PodGroup status and pods' nominated nodes persist in
// the world, as they would in a cluster.
type statusWriter struct {
	util.FakeStatusUpdater
	w *world
}

func (s *statusWriter) UpdatePodStatus(pod *v1.Pod) (*v1.Pod, error) {
	if p, ok := s.w.pods[key(pod.Namespace, pod.Name)]; ok {
		p.Status.Conditions = pod.Status.Conditions
		p.Status.NominatedNodeName = pod.Status.NominatedNodeName
	}
	return pod, nil
}

func (s *statusWriter) UpdatePodGroup(pg *api.PodGroup) (*api.PodGroup, error) {
	stored, ok := s.w.podGroups[key(pg.Namespace, pg.Name)]
	if !ok {
		return pg, nil
	}
	out := &vcv1beta1.PodGroup{}
	if err := schedulingscheme.Scheme.Convert(&pg.PodGroup, out, nil); err != nil {
		return nil, err
	}
	stored.Status = out.Status
	return pg, nil
}

type decision struct {
	Pod    string `json:"pod"`
	Node   string `json:"node,omitempty"`
	Action string `json:"action,omitempty"`
	Reason string `json:"reason,omitempty"`
}

type cycleOut struct {
	Cycle     int          `json:"cycle"`
	Binds     []decision   `json:"binds"`
	Pipelined []decision   `json:"pipelined"`
	Evictions []decision   `json:"evictions"`
	PodGroups []groupPhase `json:"podgroups"`
}

type groupPhase struct {
	Name  string `json:"name"`
	Phase string `json:"phase"`
}

// buildCache loads the world into a fresh Volcano scheduler cache, the way
// its informers would: nodes in name order, every pod of ours and every pod
// already on a node, PodGroups, Queues, PriorityClasses.
func (w *world) buildCache() *cache.SchedulerCache {
	sc := cache.NewCustomMockSchedulerCache(schedulerName, acceptBinder{}, acceptEvictor{},
		&statusWriter{w: w}, nil, &record.FakeRecorder{})
	// The fake API server behind the cache holds the nodes and pods too:
	// device plugins (deviceshare) patch annotations and take node locks
	// through it while they allocate.
	client := sc.Client()
	for _, n := range w.nodes {
		sc.AddOrUpdateNode(n.DeepCopy())
		_, _ = client.CoreV1().Nodes().Create(context.TODO(), n.DeepCopy(), metav1.CreateOptions{})
	}
	for _, k := range sortedKeys(w.pods) {
		p := w.pods[k]
		if p.Spec.SchedulerName != schedulerName && p.Spec.NodeName == "" {
			continue
		}
		cp := p.DeepCopy()
		if w.deleting[k] && cp.DeletionTimestamp == nil {
			now := cp.CreationTimestamp
			cp.DeletionTimestamp = &now
		}
		sc.AddPod(cp)
		_, _ = client.CoreV1().Pods(cp.Namespace).Create(context.TODO(), cp.DeepCopy(), metav1.CreateOptions{})
	}
	for _, k := range sortedKeys(w.podGroups) {
		sc.AddPodGroupV1beta1(w.podGroups[k].DeepCopy())
	}
	for _, k := range sortedKeys(w.queues) {
		sc.AddQueueV1beta1(w.queues[k].DeepCopy())
	}
	for _, pc := range w.pcs {
		sc.AddPriorityClass(pc.DeepCopy())
	}
	w.loadHyperNodes(sc)
	return sc
}

func sortedKeys[T any](m map[string]T) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// taskStates reads every task's status from the cache (not the session):
// binds (Binding) and evictions (Releasing) land there synchronously.
type taskState struct {
	Status   api.TaskStatus
	NodeName string
}

func taskStates(sc *cache.SchedulerCache) map[string]taskState {
	sc.Mutex.Lock()
	defer sc.Mutex.Unlock()
	out := map[string]taskState{}
	for _, job := range sc.Jobs {
		for _, t := range job.Tasks {
			out[key(t.Namespace, t.Name)] = taskState{t.Status, t.NodeName}
		}
	}
	return out
}

func (w *world) runCycle(n int, sched *schedulerConf) cycleOut {
	sc := w.buildCache()
	// AddBindTask queues every bind here; nothing else reads it in the oracle.
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case <-sc.BindFlowChannel:
			case <-stop:
				return
			}
		}
	}()
	defer close(stop)

	conf.EnabledActionMap = map[string]bool{}
	for _, a := range sched.actions {
		conf.EnabledActionMap[a.Name()] = true
	}
	out := cycleOut{Cycle: n, Binds: []decision{}, Pipelined: []decision{}, Evictions: []decision{}}
	ssn := framework.OpenSession(sc, sched.tiers, sched.configurations)
	before := taskStates(sc)
	for _, a := range sched.actions {
		a.Execute(ssn)
		after := taskStates(sc)
		for k, t := range after {
			old, seen := before[k]
			if t.Status == api.Binding && (!seen || old.Status != api.Binding) {
				out.Binds = append(out.Binds, decision{Pod: k, Node: t.NodeName})
			}
			if t.Status == api.Releasing && (!seen || old.Status != api.Releasing) {
				out.Evictions = append(out.Evictions, decision{Pod: k, Action: evictionAction(a.Name())})
			}
		}
		before = after
	}
	for _, job := range ssn.Jobs {
		for _, t := range job.TaskStatusIndex[api.Pipelined] {
			out.Pipelined = append(out.Pipelined, decision{Pod: key(t.Namespace, t.Name), Node: t.NodeName})
		}
	}
	framework.CloseSession(ssn)
	w.apply(&out)
	for _, k := range sortedKeys(w.podGroups) {
		out.PodGroups = append(out.PodGroups, groupPhase{Name: k, Phase: string(w.podGroups[k].Status.Phase)})
	}
	sortDecisions(out.Binds)
	sortDecisions(out.Pipelined)
	sortDecisions(out.Evictions)
	return out
}

// apply is basalt's ApplyDecisions: binds set the node (and clear the
// nomination), evictions mark the pod deleting.
func (w *world) apply(out *cycleOut) {
	for _, b := range out.Binds {
		if p, ok := w.pods[b.Pod]; ok {
			p.Spec.NodeName = b.Node
			p.Status.NominatedNodeName = ""
		}
	}
	for _, e := range out.Evictions {
		if _, ok := w.pods[e.Pod]; ok {
			w.deleting[e.Pod] = true
		}
	}
}

func sortDecisions(d []decision) {
	sort.Slice(d, func(i, j int) bool {
		if d[i].Pod != d[j].Pod {
			return d[i].Pod < d[j].Pod
		}
		return d[i].Node < d[j].Node
	})
}

// evictionAction names an eviction's action as basalt's JSON does: preempt or
// reclaim (gangpreempt and gangreclaim are their gang-aware modes).
func evictionAction(action string) string {
	switch action {
	case "gangpreempt":
		return "preempt"
	case "gangreclaim":
		return "reclaim"
	}
	return action
}
