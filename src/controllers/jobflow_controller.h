// The JobFlow controller (flow.volcano.sh/v1alpha1; Volcano's
// pkg/controllers/jobflow): turns a JobFlow's flows into vcjobs in dependency
// order and reports the flow's status.
//
// Each sync, for every JobFlow (key order):
//   1. jobRetainPolicy `delete` and phase Succeed: the flow's jobs are deleted
//      (with their pods and PodGroups) and nothing else happens;
//   2. for each flow (spec order) whose job `<flow>-<template>` does not exist
//      yet: it is created from the JobTemplate when the flow has no targets,
//      or when every target's job exists and is Completed. The job is the
//      template's spec with the label and annotation
//      `volcano.sh/createdByJobTemplate: <ns>.<template>` and the JobFlow as
//      controller owner; its status starts afresh (Pending);
//   3. the status is rebuilt from the flow's jobs: job names by phase
//      (pending/running/completed/failed/terminated; any other phase is
//      "unknown"), one jobStatusList entry per job, and the phase moves as
//      Volcano's state machine does:
//        Pending -> Running  when a job runs or completed and none failed,
//        Pending -> Failed   when a job failed,
//        Running -> Succeed  when every flow's job completed.
//      (Volcano's Running state never moves to Failed; neither does this.)
//
// `dependsOn.probe` is decoded but not evaluated, as in Volcano's controller.
// A job that was created once is not created again when it disappears (TTL,
// retain policy): Volcano would re-create it on its next sync, which with a
// TTL loops forever (docs/differences.md).
#pragma once

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "state/cluster_state.h"

namespace basalt {

// The pieces of one sync, shared with `basalt serve`'s live JobFlow
// controller (live/live_jobflow.cc), which creates the jobs through the API
// server instead of in the store.

// "ns/<flow>-<template>": the key of the job a flow of `flow` makes.
std::string FlowJobKey(const JobFlow& flow, const std::string& template_name);

// The flows (spec order) whose job should be created now: no job yet, not
// created before (`created(job_key)`), every target's job Completed, and the
// JobTemplate present in the flow's namespace.
std::vector<const Flow*> FlowsToCreate(const ClusterState& state, const JobFlow& flow,
                                       const std::function<bool(const std::string&)>& created);

// jobRetainPolicy `delete` once the flow Succeeded: deletes the flow's jobs
// with their pods and PodGroups from the store. Returns whether one existed.
bool DeleteSucceededFlowJobs(ClusterState& state, const JobFlow& flow);

// Step 3 above: the job lists, jobStatusList and phase of `flow` from its jobs.
void RebuildJobFlowStatus(const ClusterState& state, JobFlow& flow);

class JobFlowController {
 public:
  // Runs one sync at simulated time `now` (the created jobs' creation time).
  // Returns whether it created or deleted a job.
  bool Sync(ClusterState& state, int64_t now);

 private:
  // Jobs ("ns/name") this controller created, so a deleted one stays deleted.
  std::set<std::string> created_;
};

}  // namespace basalt
