#include "api/cronjob.h"

#include <yaml-cpp/yaml.h>

#include "api/decode.h"
#include "api/decode_fields.h"
#include "api/decode_objects.h"

namespace basalt {

using namespace decode_fields;  // NOLINT: the shared field readers

namespace {

Status ReadTime(const YAML::Node& status, const char* key, std::optional<int64_t>* out) {
  const YAML::Node n = status[key];
  if (!Present(n)) return Status::Ok();
  const std::string field = std::string("status.") + key;
  if (!n.IsScalar()) return FieldError(field, "expected an RFC 3339 time");
  auto t = ParseTimestamp(n.Scalar());
  if (!t.ok()) return FieldError(field, t.status().message());
  *out = *t;
  return Status::Ok();
}

Status DecodeStatus(const YAML::Node& status, CronJob* out) {
  if (!Present(status)) return Status::Ok();
  BASALT_RETURN_IF_ERROR(ExpectMap(status, "status"));
  const YAML::Node active = status["active"];
  BASALT_RETURN_IF_ERROR(ExpectList(active, "status.active"));
  for (size_t i = 0; Present(active) && i < active.size(); ++i) {
    const std::string path = Index("status.active", i);
    BASALT_RETURN_IF_ERROR(ExpectMap(active[i], path));
    CronJobActiveRef ref;
    BASALT_RETURN_IF_ERROR(ReadString(active[i], "name", path, &ref.name));
    BASALT_RETURN_IF_ERROR(ReadString(active[i], "namespace", path, &ref.namespace_));
    BASALT_RETURN_IF_ERROR(ReadString(active[i], "uid", path, &ref.uid));
    out->active.push_back(std::move(ref));
  }
  BASALT_RETURN_IF_ERROR(ReadTime(status, "lastScheduleTime", &out->last_schedule_time));
  return ReadTime(status, "lastSuccessfulTime", &out->last_successful_time);
}

Status ReadLimit(const YAML::Node& spec, const char* key, std::optional<int32_t>* out) {
  if (!Present(spec[key])) return Status::Ok();
  int32_t v = 0;
  BASALT_RETURN_IF_ERROR(ReadInt(spec, key, "spec", &v, 0, INT32_MAX));
  *out = v;
  return Status::Ok();
}

// The template as a vcjob document named after the CronJob.
Status DecodeTemplate(const YAML::Node& tmpl, const CronJob& cj, VcJob* job) {
  if (!Present(tmpl)) return FieldError("spec.jobTemplate", "missing");
  BASALT_RETURN_IF_ERROR(ExpectMap(tmpl, "spec.jobTemplate"));
  YAML::Node doc;
  doc["apiVersion"] = "batch.volcano.sh/v1alpha1";
  doc["kind"] = "Job";
  YAML::Node meta;
  meta["name"] = cj.meta.name;
  if (!cj.meta.namespace_.empty()) meta["namespace"] = cj.meta.namespace_;
  const YAML::Node tmeta = tmpl["metadata"];
  BASALT_RETURN_IF_ERROR(ExpectMap(tmeta, "spec.jobTemplate.metadata"));
  for (const char* key : {"labels", "annotations"}) {
    if (Present(tmeta) && Present(tmeta[key])) meta[key] = tmeta[key];
  }
  doc["metadata"] = meta;
  doc["spec"] = Present(tmpl["spec"]) ? tmpl["spec"] : YAML::Node(YAML::NodeType::Map);
  job->meta.source = cj.meta.source;
  return decode_internal::DecodeVcJob(doc, job).WithContext("spec.jobTemplate");
}

}  // namespace

Status DecodeCronJob(const YAML::Node& doc, CronJob* out) {
  BASALT_RETURN_IF_ERROR(decode_internal::DecodeMeta(doc, true, &out->meta));
  const YAML::Node spec = doc["spec"];
  if (!Present(spec)) return FieldError("spec", "missing");
  BASALT_RETURN_IF_ERROR(ExpectMap(spec, "spec"));
  BASALT_RETURN_IF_ERROR(ReadString(spec, "schedule", "spec", &out->schedule));
  if (Present(spec["timeZone"])) {
    std::string tz;
    BASALT_RETURN_IF_ERROR(ReadString(spec, "timeZone", "spec", &tz));
    out->time_zone = tz;
  }
  if (Present(spec["startingDeadlineSeconds"])) {
    int64_t v = 0;
    BASALT_RETURN_IF_ERROR(ReadInt(spec, "startingDeadlineSeconds", "spec", &v, 0, INT64_MAX));
    out->starting_deadline_seconds = v;
  }
  BASALT_RETURN_IF_ERROR(ReadString(spec, "concurrencyPolicy", "spec", &out->concurrency_policy));
  if (out->concurrency_policy.empty()) out->concurrency_policy = "Allow";
  const std::string& p = out->concurrency_policy;
  if (p != "Allow" && p != "Forbid" && p != "Replace") {
    return FieldError("spec.concurrencyPolicy",
                      "unknown policy \"" + p + "\" (want Allow, Forbid or Replace)");
  }
  BASALT_RETURN_IF_ERROR(ReadBool(spec, "suspend", "spec", &out->suspend));
  BASALT_RETURN_IF_ERROR(
      ReadLimit(spec, "successfulJobsHistoryLimit", &out->successful_jobs_history_limit));
  BASALT_RETURN_IF_ERROR(
      ReadLimit(spec, "failedJobsHistoryLimit", &out->failed_jobs_history_limit));
  BASALT_RETURN_IF_ERROR(DecodeTemplate(spec["jobTemplate"], *out, &out->job_template));
  return DecodeStatus(doc["status"], out);
}

}  // namespace basalt
