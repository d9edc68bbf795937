package main

import (
	"fmt"
	"sort"
	"strconv"

	v1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	batch "volcano.sh/apis/pkg/apis/batch/v1alpha1"
	vcv1beta1 "volcano.sh/apis/pkg/apis/scheduling/v1beta1"
	topologyv1alpha1 "volcano.sh/apis/pkg/apis/topology/v1alpha1"
	controllerutil "volcano.sh/volcano/pkg/controllers/util"
)

const schedulerName = "volcano"

// world is the cluster between sessions, what the API server would hold:
// `basalt schedule`'s ClusterState, moved by the same world step.
type world struct {
	nodes      []*v1.Node // name order
	pods       map[string]*v1.Pod
	podGroups  map[string]*vcv1beta1.PodGroup
	queues     map[string]*vcv1beta1.Queue
	pcs        []*schedulingv1.PriorityClass
	namespaces map[string]*v1.Namespace
	hyperNodes []*topologyv1alpha1.HyperNode
	jobs       []*batch.Job // name order
	// podUIDs keeps each pod's UID as written (the bare-pod PodGroup is named
	// after it); the UID Volcano sees is replaced by ns/name (see tieUID).
	podUIDs      map[string]string
	deleting     map[string]bool
	runningSteps map[string]int64
}

func key(ns, name string) string { return ns + "/" + name }

// tieUID is the UID every object gets inside the oracle: Volcano breaks
// ties between equally ordered jobs, tasks and queues by UID after the
// creation time, basalt by namespace/name, so UIDs that are the names make
// the two orders one.
func tieUID(ns, name string) types.UID { return types.UID(key(ns, name)) }

func newWorld(m *manifests) (*world, error) {
	w := &world{
		pods:         map[string]*v1.Pod{},
		podGroups:    map[string]*vcv1beta1.PodGroup{},
		queues:       map[string]*vcv1beta1.Queue{},
		namespaces:   map[string]*v1.Namespace{},
		podUIDs:      map[string]string{},
		deleting:     map[string]bool{},
		runningSteps: map[string]int64{},
		pcs:          m.pcs,
		hyperNodes:   m.hyperNodes,
	}
	for _, n := range m.nodes {
		n.UID = types.UID(n.Name)
		w.nodes = append(w.nodes, n)
	}
	sort.Slice(w.nodes, func(i, j int) bool { return w.nodes[i].Name < w.nodes[j].Name })
	for _, ns := range m.namespaces {
		w.namespaces[ns.Name] = ns
	}
	for _, q := range m.queues {
		defaultQueue(q)
		w.queues[q.Name] = q
	}
	// Volcano's scheduler creates root (not reclaimable) and default at start
	// (cache.go, newDefaultAndRootQueue); its queue controller makes root the
	// parent of every other queue without one.
	if _, ok := w.queues["root"]; !ok {
		no := false
		q := &vcv1beta1.Queue{ObjectMeta: metav1.ObjectMeta{Name: "root"},
			Spec: vcv1beta1.QueueSpec{Reclaimable: &no}}
		defaultQueue(q)
		w.queues["root"] = q
	}
	if _, ok := w.queues["default"]; !ok {
		q := &vcv1beta1.Queue{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
		defaultQueue(q)
		w.queues["default"] = q
	}
	for name, q := range w.queues {
		if name != "root" && q.Spec.Parent == "" {
			q.Spec.Parent = "root"
		}
	}
	for _, pg := range m.podGroups {
		if pg.Namespace == "" {
			pg.Namespace = "default"
		}
		w.defaultPodGroup(pg)
		w.podGroups[key(pg.Namespace, pg.Name)] = pg
	}
	for _, p := range m.pods {
		if p.Namespace == "" {
			p.Namespace = "default"
		}
		k := key(p.Namespace, p.Name)
		if _, dup := w.pods[k]; dup {
			return nil, fmt.Errorf("Pod %s given twice", k)
		}
		w.podUIDs[k] = string(p.UID)
		p.UID = tieUID(p.Namespace, p.Name)
		if p.Status.Phase == "" {
			p.Status.Phase = v1.PodPending
		}
		if p.Spec.SchedulerName == "" {
			p.Spec.SchedulerName = v1.DefaultSchedulerName
		}
		if p.DeletionTimestamp != nil {
			w.deleting[k] = true
		}
		w.admitPriority(p)
		defaultRequests(p)
		w.pods[k] = p
	}
	w.jobs = m.jobs
	sort.Slice(w.jobs, func(i, j int) bool {
		return key(w.jobs[i].Namespace, w.jobs[i].Name) < key(w.jobs[j].Namespace, w.jobs[j].Name)
	})
	w.syncJobs()
	w.syncBarePodGroups()
	return w, nil
}

// defaultQueue fills what Volcano's queue webhook and controller would have
// written on a stored Queue: weight 1, reclaimable, state Open.
func defaultQueue(q *vcv1beta1.Queue) {
	q.UID = types.UID(q.Name)
	if q.Spec.Weight == 0 {
		q.Spec.Weight = 1
	}
	if q.Spec.Reclaimable == nil {
		t := true
		q.Spec.Reclaimable = &t
	}
	if q.Status.State == "" {
		q.Status.State = vcv1beta1.QueueStateOpen
	}
}

// defaultPodGroup fills what the PodGroup webhook would have written: the
// queue (the namespace's queue-name annotation, else default) and phase Pending.
func (w *world) defaultPodGroup(pg *vcv1beta1.PodGroup) {
	pg.UID = tieUID(pg.Namespace, pg.Name)
	if pg.Spec.Queue == "" {
		pg.Spec.Queue = "default"
		if ns, ok := w.namespaces[pg.Namespace]; ok {
			if q := ns.Annotations[vcv1beta1.QueueNameAnnotationKey]; q != "" {
				pg.Spec.Queue = q
			}
		}
	}
	if pg.Status.Phase == "" {
		pg.Status.Phase = vcv1beta1.PodGroupPending
	}
}

// admitPriority writes spec.priority (and spec.preemptionPolicy) as the
// Priority admission plugin would have (basalt reads manifests that were never admitted: docs/differences.md).
func (w *world) admitPriority(p *v1.Pod) {
	if p.Spec.Priority != nil {
		return
	}
	var value int32
	var policy *v1.PreemptionPolicy
	for _, pc := range w.pcs {
		if p.Spec.PriorityClassName != "" && pc.Name == p.Spec.PriorityClassName ||
			p.Spec.PriorityClassName == "" && pc.GlobalDefault {
			value = pc.Value
			policy = pc.PreemptionPolicy
		}
	}
	p.Spec.Priority = &value
	if p.Spec.PreemptionPolicy == nil && policy != nil {
		pp := *policy
		p.Spec.PreemptionPolicy = &pp
	}
}

// syncBarePodGroups is Volcano's PodGroup controller for pods of ours that
// name no group: one PodGroup per controlling owner (else per pod), named as
// basalt names it.
func (w *world) syncBarePodGroups() {
	keys := make([]string, 0, len(w.pods))
	for k := range w.pods {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		p := w.pods[k]
		if p.Spec.SchedulerName != schedulerName {
			continue
		}
		if _, ok := p.Annotations[vcv1beta1.KubeGroupNameAnnotationKey]; ok {
			continue
		}
		id := p.Name
		if uid := w.podUIDs[k]; uid != "" {
			id = uid
		}
		if owner := controllerRef(p); owner != nil {
			id = owner.Name
			if owner.UID != "" {
				id = string(owner.UID)
			}
		}
		name := "podgroup-" + id
		if p.Annotations == nil {
			p.Annotations = map[string]string{}
		}
		p.Annotations[vcv1beta1.KubeGroupNameAnnotationKey] = name
		if _, ok := w.podGroups[key(p.Namespace, name)]; ok {
			continue
		}
		w.podGroups[key(p.Namespace, name)] = w.barePodGroup(p, name)
	}
}

func controllerRef(p *v1.Pod) *metav1.OwnerReference {
	for i := range p.OwnerReferences {
		if r := &p.OwnerReferences[i]; r.Controller != nil && *r.Controller {
			return r
		}
	}
	if len(p.OwnerReferences) > 0 {
		return &p.OwnerReferences[0]
	}
	return nil
}

func (w *world) barePodGroup(p *v1.Pod, name string) *vcv1beta1.PodGroup {
	minResources := controllerutil.CalTaskRequests(p, 1)
	pg := &vcv1beta1.PodGroup{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: p.Namespace, Name: name,
			CreationTimestamp: p.CreationTimestamp,
			Annotations:       map[string]string{},
		},
		Spec: vcv1beta1.PodGroupSpec{
			MinMember:         1,
			PriorityClassName: p.Spec.PriorityClassName,
			MinResources:      &minResources,
			Queue:             p.Annotations[vcv1beta1.QueueNameAnnotationKey],
		},
	}
	for _, k := range []string{vcv1beta1.PodPreemptable, vcv1beta1.CooldownTime,
		vcv1beta1.RevocableZone, vcv1beta1.JDBMinAvailable, vcv1beta1.JDBMaxUnavailable} {
		if v, ok := p.Annotations[k]; ok {
			pg.Annotations[k] = v
		}
	}
	w.defaultPodGroup(pg)
	return pg
}

// step is basalt's world step (src/engine/cycle_runner.cc, WorldStep): pods
// marked deleting disappear, Running pods whose basalt.io/finish-after-steps
// ran out finish, bound pods start, controllers sync.
func (w *world) step() {
	for k := range w.deleting {
		delete(w.pods, k)
		delete(w.runningSteps, k)
	}
	w.deleting = map[string]bool{}
	still := map[string]int64{}
	for k, p := range w.pods {
		switch {
		case p.Status.Phase == v1.PodRunning:
			after, ok := intAnnotation(p, "basalt.io/finish-after-steps")
			if _, has := p.Annotations["basalt.io/finish-after-steps"]; !has {
				continue
			}
			steps := w.runningSteps[k] + 1
			if ok && after >= 0 && steps >= after {
				if p.Annotations["basalt.io/finish-phase"] == "Failed" {
					p.Status.Phase = v1.PodFailed
				} else {
					p.Status.Phase = v1.PodSucceeded
				}
				continue
			}
			still[k] = steps
		case p.Status.Phase == v1.PodPending && p.Spec.NodeName != "":
			p.Status.Phase = v1.PodRunning
			if _, has := p.Annotations["basalt.io/finish-after-steps"]; has {
				still[k] = 0
			}
		}
	}
	w.runningSteps = still
	w.syncJobs()
	w.syncBarePodGroups()
}

func intAnnotation(p *v1.Pod, k string) (int64, bool) {
	v, ok := p.Annotations[k]
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(v, 10, 64)
	return n, err == nil
}

// unfollowable says why the world step after this cycle is beyond the
// oracle: an evicted pod of a vcjob whose lifecycle policies would react.
func (w *world) unfollowable(c cycleOut) string {
	for _, e := range c.Evictions {
		if job := w.jobWithPolicies(e.Pod); job != "" {
			return fmt.Sprintf("pod %s of vcjob %s (with lifecycle policies) was evicted", e.Pod, job)
		}
	}
	return ""
}

// defaultRequests is the API server's defaulting: a container's limit
// without a request is its request too.
func defaultRequests(p *v1.Pod) {
	for _, list := range [][]v1.Container{p.Spec.InitContainers, p.Spec.Containers} {
		for i := range list {
			r := &list[i].Resources
			for name, q := range r.Limits {
				if _, ok := r.Requests[name]; !ok {
					if r.Requests == nil {
						r.Requests = v1.ResourceList{}
					}
					r.Requests[name] = q.DeepCopy()
				}
			}
		}
	}
}
