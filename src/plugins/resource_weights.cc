#include "plugins/resource_weights.h"

#include <string_view>

#include "api/text.h"

namespace basalt {

Status ReadResourceWeightList(const Arguments& args, const std::string& prefix,
                              std::map<ResourceId, int64_t>* weights) {
  std::string list;
  BASALT_RETURN_IF_ERROR(args.GetString(prefix + "resources", &list));
  std::string_view rest = list;
  while (!rest.empty()) {
    size_t comma = rest.find(',');
    std::string_view name = Trim(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    if (name.empty()) continue;
    int64_t weight = 1;
    BASALT_RETURN_IF_ERROR(args.GetInt(prefix + "resources." + std::string(name), &weight));
    (*weights)[ResourceNames::Intern(name)] = weight < 0 ? 1 : weight;
  }
  return Status::Ok();
}

}  // namespace basalt
