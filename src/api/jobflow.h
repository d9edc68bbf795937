// flow.volcano.sh/v1alpha1 JobFlow: a DAG of vcjobs made from JobTemplates
// (a JobTemplate is a vcjob spec under another kind; it is decoded as a
// `VcJob` and kept in `ClusterObjects::job_templates`).
//
//   kind: JobFlow
//   spec:
//     jobRetainPolicy: retain        # or delete: the jobs go once the flow succeeded
//     flows:
//     - name: a                      # a JobTemplate in the flow's namespace
//     - name: b
//       dependsOn:
//         targets: [a]               # created once every target job is Completed
//         probe: {taskStatusList: [{taskName: t, phase: Running}]}
//
// The controller (controllers/jobflow_controller.h) creates the vcjob
// `<flow>-<template>` for each flow once its targets completed and writes the
// status below.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "api/objects.h"
#include "api/status.h"

namespace YAML {
class Node;
}

namespace basalt {

// dependsOn.probe. Decoded and kept, but, as in Volcano's controller, not
// evaluated: a flow waits for its targets' completion only.
struct FlowProbe {
  struct HttpGet {
    std::string task_name, path;
    int32_t port = 0;
  };
  struct TcpSocket {
    std::string task_name;
    int32_t port = 0;
  };
  struct TaskStatus {
    std::string task_name, phase;
  };
  std::vector<HttpGet> http_get_list;
  std::vector<TcpSocket> tcp_socket_list;
  std::vector<TaskStatus> task_status_list;
};

struct Flow {
  std::string name;                  // the JobTemplate's name
  std::vector<std::string> targets;  // dependsOn.targets: names of other flows
  bool has_probe = false;
  FlowProbe probe;
};

// One job's entry in status.jobStatusList.
struct FlowJobStatus {
  std::string name;   // the vcjob's name
  std::string state;  // its phase
  int32_t restart_count = 0;
  int64_t start_time = 0;  // the job's creation (simulated seconds)
};

struct JobFlow {
  ObjectMeta meta;
  std::vector<Flow> flows;
  std::string job_retain_policy = "retain";  // retain | delete
  // Status, written by the controller. Phases as Volcano spells them:
  // Pending, Running, Succeed, Failed (Terminating is not reached here).
  std::string phase = "Pending";
  std::vector<std::string> pending_jobs, running_jobs, completed_jobs, failed_jobs, terminated_jobs,
      unknown_jobs;
  std::vector<FlowJobStatus> job_status_list;  // in flow order
};

// The label and annotation Volcano puts on a job made from a template:
// "<namespace>.<template>".
inline constexpr const char* kCreatedByJobTemplate = "volcano.sh/createdByJobTemplate";

// The vcjob a flow creates: "<flow>-<template>".
inline std::string FlowJobName(const JobFlow& flow, const std::string& template_name) {
  return flow.meta.name + "-" + template_name;
}

// Decodes a JobFlow document (metadata already checked by the caller's kind
// dispatch). Checks, as Volcano's admission does: targets name flows of the
// same JobFlow and the dependencies form a DAG (messages "jobflow Flow is not
// DAG: vertex is not defined: X" and "jobflow Flow is not DAG"); plus the
// CRD's: flow names present, jobRetainPolicy retain|delete. A flow name given
// twice and an empty flow list are accepted (as Volcano accepts them).
// Messages are "field: problem" (e.g. "spec.flows[2].dependsOn.targets[0]: ...").
Status DecodeJobFlowSpec(const YAML::Node& doc, JobFlow* flow);

// Every flow of every JobFlow names a JobTemplate in the flow's namespace;
// the message names the JobFlow's source, the flow and the field.
Status CheckJobFlowTemplates(const std::vector<JobFlow>& flows,
                             const std::vector<VcJob>& templates);

}  // namespace basalt
