package main

import (
	"fmt"
	"strconv"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	batch "volcano.sh/apis/pkg/apis/batch/v1alpha1"
	vcv1beta1 "volcano.sh/apis/pkg/apis/scheduling/v1beta1"
)

// The oracle expands vcjobs the way basalt's job controller does
// (src/controllers/job_controller.cc), for the subset it can follow without
// the controller's state machine: the PodGroup `<job>-<uid>` (`<job>` without
// a uid), and the
// pods <job>-<task>-<index> once the PodGroup left Pending, re-created when
// one disappears. A job whose pod is evicted while it has lifecycle policies
// (RestartJob, AbortJob, RestartTask, ...) ends the comparable run: the
// oracle stops after that cycle and says so ("truncated").

// checkJob refuses the vcjob fields the expansion does not follow.
func checkJob(j *batch.Job) error {
	name := key(j.Namespace, j.Name)
	if len(j.Spec.Plugins) > 0 {
		return unsupported("vcjob %s: job plugins (spec.plugins)", name)
	}
	if j.Spec.MinSuccess != nil || j.Spec.TTLSecondsAfterFinished != nil {
		return unsupported("vcjob %s: minSuccess or ttlSecondsAfterFinished (the job controller's completion rules)", name)
	}
	for _, p := range j.Spec.Policies {
		if p.Event != "PodEvicted" || p.ExitCode != nil || len(p.Events) > 0 {
			return unsupported("vcjob %s: lifecycle policies other than one PodEvicted event", name)
		}
	}
	for _, t := range j.Spec.Tasks {
		if len(t.Policies) > 0 || t.DependsOn != nil {
			return unsupported("vcjob %s: task %s policies or dependsOn", name, t.Name)
		}
		if _, ok := t.Template.Annotations["basalt.io/finish-after-steps"]; ok {
			return unsupported("vcjob %s: pods that finish (the job controller's completion rules)", name)
		}
	}
	return nil
}

func applyJobDefaults(j *batch.Job) {
	if j.Namespace == "" {
		j.Namespace = "default"
	}
	for i := range j.Spec.Tasks {
		t := &j.Spec.Tasks[i]
		if t.Name == "" {
			t.Name = "default" + strconv.Itoa(i)
		}
		if t.MinAvailable == nil {
			r := t.Replicas
			t.MinAvailable = &r
		}
	}
	if j.Spec.MinAvailable == 0 {
		// Volcano's job webhook: the sum of the tasks' minAvailable.
		for _, t := range j.Spec.Tasks {
			j.Spec.MinAvailable += *t.MinAvailable
		}
	}
	if j.Spec.Queue == "" {
		j.Spec.Queue = "default"
	}
}

// jobMinResources is what basalt's MinResources computes: every task's
// minAvailable pods first, then more pods in task order up to minAvailable.
func jobMinResources(j *batch.Job) v1.ResourceList {
	left := j.Spec.MinAvailable
	taken := make([]int32, len(j.Spec.Tasks))
	var taskMinSum int32
	for _, t := range j.Spec.Tasks {
		taskMinSum += *t.MinAvailable
	}
	if left >= taskMinSum {
		for i, t := range j.Spec.Tasks {
			n := min(max(0, *t.MinAvailable), t.Replicas)
			taken[i] = n
			left -= n
		}
	}
	for i, t := range j.Spec.Tasks {
		for left > 0 && taken[i] < t.Replicas {
			taken[i]++
			left--
		}
	}
	total := v1.ResourceList{}
	for i, t := range j.Spec.Tasks {
		for _, c := range t.Template.Spec.Containers {
			for name, q := range c.Resources.Requests {
				if name == v1.ResourcePods {
					continue
				}
				sum := total[name]
				for n := int32(0); n < taken[i]; n++ {
					sum.Add(q)
				}
				total[name] = sum
			}
		}
	}
	return total
}

// jobPodGroupName is the name Volcano v1.15.1's job controller gives a job's
// PodGroup: `<job>-<uid>`; a job without a uid (the API server always sets
// one, a manifest need not) keeps its own name, as basalt's controller does.
func jobPodGroupName(j *batch.Job) string {
	if j.UID == "" {
		return j.Name
	}
	return j.Name + "-" + string(j.UID)
}

func (w *world) jobPodGroup(j *batch.Job) *vcv1beta1.PodGroup {
	minRes := jobMinResources(j)
	pg := &vcv1beta1.PodGroup{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: j.Namespace, Name: jobPodGroupName(j), CreationTimestamp: j.CreationTimestamp,
			Annotations: map[string]string{},
		},
		Spec: vcv1beta1.PodGroupSpec{
			MinMember:         j.Spec.MinAvailable,
			MinTaskMember:     map[string]int32{},
			Queue:             j.Spec.Queue,
			PriorityClassName: j.Spec.PriorityClassName,
			MinResources:      &minRes,
		},
	}
	for k, v := range j.Annotations {
		pg.Annotations[k] = v
	}
	for _, t := range j.Spec.Tasks {
		pg.Spec.MinTaskMember[t.Name] = *t.MinAvailable
	}
	pg.Spec.NetworkTopology = podGroupTopology(j.Spec.NetworkTopology)
	// Each partitioned task is one SubGroup policy over its pods' partition-id
	// label (basalt's PolicyOfPartitions, as Volcano's job controller writes it).
	for _, t := range j.Spec.Tasks {
		pp := t.PartitionPolicy
		if pp == nil {
			continue
		}
		size, minGroups := pp.PartitionSize, pp.MinPartitions
		pg.Spec.SubGroupPolicy = append(pg.Spec.SubGroupPolicy, vcv1beta1.SubGroupPolicySpec{
			Name:            t.Name,
			NetworkTopology: podGroupTopology(pp.NetworkTopology),
			SubGroupSize:    &size,
			MinSubGroups:    &minGroups,
			LabelSelector: &metav1.LabelSelector{
				MatchLabels: map[string]string{batch.TaskSpecKey: t.Name},
			},
			MatchLabelKeys: []string{partitionIDLabel},
		})
	}
	w.defaultPodGroup(pg)
	return pg
}

func (w *world) jobPod(j *batch.Job, t batch.TaskSpec, index int) *v1.Pod {
	p := &v1.Pod{
		ObjectMeta: *t.Template.ObjectMeta.DeepCopy(),
		Spec:       *t.Template.Spec.DeepCopy(),
	}
	p.Name = fmt.Sprintf("%s-%s-%d", j.Name, t.Name, index)
	p.Namespace = j.Namespace
	p.CreationTimestamp = j.CreationTimestamp
	p.UID = tieUID(p.Namespace, p.Name)
	if p.Annotations == nil {
		p.Annotations = map[string]string{}
	}
	if p.Labels == nil {
		p.Labels = map[string]string{}
	}
	ann := p.Annotations
	ann[vcv1beta1.KubeGroupNameAnnotationKey] = jobPodGroupName(j)
	ann[batch.TaskSpecKey] = t.Name
	ann[batch.TaskIndex] = strconv.Itoa(index)
	ann[batch.JobNameKey] = j.Name
	ann[batch.QueueNameKey] = j.Spec.Queue
	ann[batch.JobVersion] = "0"
	for _, k := range []string{vcv1beta1.PodPreemptable, vcv1beta1.RevocableZone,
		vcv1beta1.CooldownTime, vcv1beta1.JDBMinAvailable, vcv1beta1.JDBMaxUnavailable} {
		if v, ok := j.Annotations[k]; ok {
			if _, set := ann[k]; !set {
				ann[k] = v
			}
		}
	}
	p.Labels[batch.JobNameKey] = j.Name
	p.Labels[batch.JobNamespaceKey] = j.Namespace
	p.Labels[batch.QueueNameKey] = j.Spec.Queue
	p.Labels[batch.TaskSpecKey] = t.Name
	p.Labels[batch.TaskIndex] = strconv.Itoa(index)
	if pp := t.PartitionPolicy; pp != nil && pp.PartitionSize > 0 {
		p.Labels[partitionIDLabel] = strconv.Itoa(index / int(pp.PartitionSize))
	}
	if p.Spec.SchedulerName == "" || p.Spec.SchedulerName == v1.DefaultSchedulerName {
		p.Spec.SchedulerName = j.Spec.SchedulerName
		if p.Spec.SchedulerName == "" {
			p.Spec.SchedulerName = schedulerName
		}
	}
	if p.Spec.PriorityClassName == "" {
		p.Spec.PriorityClassName = j.Spec.PriorityClassName
	}
	p.Status.Phase = v1.PodPending
	w.admitPriority(p)
	defaultRequests(p)
	return p
}

// syncJobs creates each job's PodGroup, then its missing pods once the
// PodGroup has left Pending.
func (w *world) syncJobs() {
	for _, j := range w.jobs {
		pgKey := key(j.Namespace, jobPodGroupName(j))
		pg, ok := w.podGroups[pgKey]
		if !ok {
			pg = w.jobPodGroup(j)
			w.podGroups[pgKey] = pg
		}
		if pg.Status.Phase == vcv1beta1.PodGroupPending {
			continue
		}
		for _, t := range j.Spec.Tasks {
			for i := 0; i < int(t.Replicas); i++ {
				name := fmt.Sprintf("%s-%s-%d", j.Name, t.Name, i)
				if _, exists := w.pods[key(j.Namespace, name)]; !exists {
					w.pods[key(j.Namespace, name)] = w.jobPod(j, t, i)
				}
			}
		}
	}
}

// jobWithPolicies names the vcjob owning the pod when that job has
// lifecycle policies the oracle does not run, else "".
func (w *world) jobWithPolicies(podKey string) string {
	p, ok := w.pods[podKey]
	if !ok {
		return ""
	}
	name := p.Annotations[batch.JobNameKey]
	for _, j := range w.jobs {
		if j.Name == name && j.Namespace == p.Namespace && len(j.Spec.Policies) > 0 {
			return key(j.Namespace, j.Name)
		}
	}
	return ""
}

var _ = resource.Quantity{}

// partitionIDLabel is the pod label a partitioned task's SubGroups split by.
const partitionIDLabel = "volcano.sh/partition-id"

func podGroupTopology(t *batch.NetworkTopologySpec) *vcv1beta1.NetworkTopologySpec {
	if t == nil {
		return nil
	}
	out := &vcv1beta1.NetworkTopologySpec{
		Mode:            vcv1beta1.NetworkTopologyMode(t.Mode),
		HighestTierName: t.HighestTierName,
	}
	if t.HighestTierAllowed != nil {
		v := *t.HighestTierAllowed
		out.HighestTierAllowed = &v
	}
	return out
}
