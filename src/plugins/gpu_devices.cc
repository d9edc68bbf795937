#include "plugins/gpu_devices.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <set>

namespace basalt {
namespace {

std::vector<std::string_view> Split(std::string_view text, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    size_t end = text.find(sep, start);
    out.push_back(
        text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return out;
}

bool ParseInt(std::string_view s, int64_t* out) {
  if (s.empty()) return false;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && ptr == s.data() + s.size();
}

// Go's strconv.ParseBool, which the device plugin's text is read with.
std::optional<bool> ParseGoBool(std::string_view s) {
  static const std::set<std::string_view> kTrue = {"1", "t", "T", "TRUE", "true", "True"};
  static const std::set<std::string_view> kFalse = {"0", "f", "F", "FALSE", "false", "False"};
  if (kTrue.count(s)) return true;
  if (kFalse.count(s)) return false;
  return std::nullopt;
}

std::string Upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

bool ContainsFolded(std::string_view haystack, std::string_view needle) {
  return Upper(haystack).find(Upper(needle)) != std::string::npos;
}

std::vector<std::string> SplitTypes(const std::map<std::string, std::string>& annotations,
                                    const char* key) {
  std::vector<std::string> out;
  auto it = annotations.find(key);
  if (it == annotations.end()) return out;
  for (std::string_view t : Split(it->second, ',')) {
    if (!t.empty()) out.emplace_back(t);
  }
  return out;
}

// Scalar `name` of `r` in whole units (scalars are stored in milli-units).
int64_t Units(const Resource& r, const char* name, bool* present) {
  ResourceId id;
  if (!ResourceNames::Lookup(name, &id) || !r.Has(id)) {
    if (present) *present = false;
    return 0;
  }
  if (present) *present = true;
  return r.Get(id) / 1000;
}

bool TypeAllowed(const GpuCard& card, const VgpuRequest& req) {
  // Volcano first checks the general device kind, then the pod's lists.
  if (card.type.find("NVIDIA") == std::string::npos) return false;
  if (!req.use_types.empty()) {
    return std::any_of(req.use_types.begin(), req.use_types.end(),
                       [&](const std::string& t) { return ContainsFolded(card.type, t); });
  }
  return std::none_of(req.nouse_types.begin(), req.nouse_types.end(),
                      [&](const std::string& t) { return ContainsFolded(card.type, t); });
}

std::string CardsPhrase(int64_t count) {
  return count <= 1 ? "no GPU card" : "fewer than " + std::to_string(count) + " GPU cards";
}

}  // namespace

Result<GpuCards> GpuCards::FromVgpuRegister(std::string_view text) {
  std::vector<GpuCard> cards;
  int record = 0;
  for (std::string_view entry : Split(text, ':')) {
    // Volcano skips records without a comma (the trailing empty one).
    if (entry.find(',') == std::string_view::npos) continue;
    const std::string where = "card " + std::to_string(record++);
    std::vector<std::string_view> f = Split(entry, ',');
    if (f.size() < 5) {
      return Status::InvalidArgument(where +
                                     ": expected \"uuid,count,memory,type,health[,mode]\", got \"" +
                                     std::string(entry) + "\"");
    }
    GpuCard c;
    c.uuid = std::string(f[0]);
    if (c.uuid.empty()) return Status::InvalidArgument(where + ": uuid: empty");
    if (!ParseInt(f[1], &c.max_sharers) || c.max_sharers < 0) {
      return Status::InvalidArgument(where + ": count: expected a non-negative integer, got \"" +
                                     std::string(f[1]) + "\"");
    }
    if (!ParseInt(f[2], &c.memory) || c.memory < 0) {
      return Status::InvalidArgument(where +
                                     ": memory: expected a non-negative integer (MiB), got \"" +
                                     std::string(f[2]) + "\"");
    }
    c.type = std::string(f[3]);
    std::optional<bool> healthy = ParseGoBool(f[4]);
    if (!healthy) {
      return Status::InvalidArgument(where + ": health: expected true or false, got \"" +
                                     std::string(f[4]) + "\"");
    }
    c.healthy = *healthy;
    cards.push_back(std::move(c));
  }
  if (cards.empty()) return Status::InvalidArgument("no card registered");
  return GpuCards(std::move(cards));
}

GpuCards GpuCards::Uniform(int64_t count, int64_t total_memory, std::string_view unhealthy_ids) {
  std::set<int64_t> unhealthy;
  for (std::string_view id : Split(unhealthy_ids, ',')) {
    int64_t v;
    if (ParseInt(id, &v)) unhealthy.insert(v);
  }
  std::vector<GpuCard> cards;
  if (count <= 0) return GpuCards();
  const int64_t each = total_memory / count;
  for (int64_t i = 0; i < count; ++i) {
    if (unhealthy.count(i)) continue;
    GpuCard c;
    c.uuid = std::to_string(i);
    c.type = "NVIDIA";
    c.memory = each;
    cards.push_back(std::move(c));
  }
  return GpuCards(std::move(cards));
}

int32_t GpuCards::Find(std::string_view uuid) const {
  for (size_t i = 0; i < cards_.size(); ++i) {
    if (cards_[i].uuid == uuid) return static_cast<int32_t>(i);
  }
  // Volcano matches a recorded id that merely contains a card's uuid.
  for (size_t i = 0; i < cards_.size(); ++i) {
    if (uuid.find(cards_[i].uuid) != std::string_view::npos) return static_cast<int32_t>(i);
  }
  return -1;
}

void GpuCards::Add(const CardUses& uses) {
  for (const CardUse& u : uses) {
    GpuCard& c = cards_.at(u.card);
    c.used_memory += u.memory;
    c.used_cores += u.cores;
    c.sharers += 1;
  }
}

void GpuCards::Remove(const CardUses& uses) {
  for (const CardUse& u : uses) {
    GpuCard& c = cards_.at(u.card);
    c.used_memory = std::max<int64_t>(0, c.used_memory - u.memory);
    c.used_cores = std::max<int64_t>(0, c.used_cores - u.cores);
    c.sharers = std::max<int64_t>(0, c.sharers - 1);
  }
}

std::optional<DevicePolicy> ParseDevicePolicy(std::string_view text) {
  if (text.empty()) return DevicePolicy::kNone;
  if (text == "binpack") return DevicePolicy::kBinpack;
  if (text == "spread") return DevicePolicy::kSpread;
  return std::nullopt;
}

std::optional<VgpuRequest> VgpuRequestOf(const Resource& request,
                                         const std::map<std::string, std::string>& annotations) {
  bool has_number = false, has_memory = false, has_percent = false;
  VgpuRequest r;
  r.count = Units(request, kVgpuNumberResource, &has_number);
  r.memory = Units(request, kVgpuMemoryResource, &has_memory);
  if (!has_number && !has_memory) return std::nullopt;
  if (!has_number) r.count = 1;
  const int64_t percent = Units(request, kVgpuMemoryPercentageResource, &has_percent);
  if (has_percent) r.memory_percent = percent;
  if (r.memory_percent == VgpuRequest::kUnsetPercent && r.memory == 0) r.memory_percent = 100;
  r.cores = Units(request, kVgpuCoresResource, nullptr);
  r.use_types = SplitTypes(annotations, kUseGpuTypeAnnotation);
  r.nouse_types = SplitTypes(annotations, kNoUseGpuTypeAnnotation);
  auto mode = annotations.find(kVgpuModeAnnotation);
  if (mode != annotations.end()) r.mode = mode->second;
  return r;
}

bool FitVgpu(const GpuCards& gpus, const VgpuRequest& req, CardUses* uses, std::string* reason) {
  uses->clear();
  if (req.count <= 0) return true;
  if (!req.mode.empty() && req.mode != kHamiCoreMode) {
    *reason = "vGPU mode " + req.mode + " requested, the node's cards run " + kHamiCoreMode;
    return false;
  }
  const auto& cards = gpus.cards();
  if (req.count > static_cast<int64_t>(cards.size())) {
    *reason =
        "insufficient vGPU: the node has fewer than " + std::to_string(req.count) + " GPU cards";
    return false;
  }
  for (int32_t i = static_cast<int32_t>(cards.size()) - 1; i >= 0; --i) {
    const GpuCard& c = cards[i];
    if (!c.healthy || c.max_sharers <= c.sharers) continue;
    const int64_t memory = req.memory == 0 && req.memory_percent != VgpuRequest::kUnsetPercent
                               ? c.memory * req.memory_percent / 100
                               : req.memory;
    if (c.memory - c.used_memory < memory) continue;
    if (c.used_cores + req.cores > 100) continue;
    if (req.cores == 100 && c.sharers > 0) continue;  // 100% cores: the card alone
    if (c.used_cores == 100 && req.cores == 0) continue;
    if (!TypeAllowed(c, req)) continue;
    uses->push_back({i, memory, req.cores});
    if (static_cast<int64_t>(uses->size()) == req.count) return true;
  }
  uses->clear();
  std::string what = req.memory > 0 ? std::to_string(req.memory) + " MiB"
                                    : std::to_string(req.memory_percent) + "% of its";
  what += " device memory";
  if (req.cores > 0) what += " and " + std::to_string(req.cores) + "% cores";
  *reason = "insufficient vGPU: " + CardsPhrase(req.count) + " can take " + what;
  return false;
}

double VgpuScore(const GpuCards& gpus, const CardUses& uses, DevicePolicy policy) {
  double score = 0;
  for (const CardUse& u : uses) {
    const GpuCard& c = gpus.cards().at(u.card);
    switch (policy) {
      case DevicePolicy::kBinpack:
        if (c.memory > 0)
          score +=
              100.0 * static_cast<double>(c.used_memory + u.memory) / static_cast<double>(c.memory);
        break;
      case DevicePolicy::kSpread:
        if (c.sharers == 0) score += 100.0;
        break;
      case DevicePolicy::kNone:
        break;
    }
  }
  return score;
}

std::string EncodeVgpuIds(const GpuCards& gpus, const CardUses& uses) {
  std::string out;
  for (const CardUse& u : uses) {
    out += gpus.cards().at(u.card).uuid + ",NVIDIA," + std::to_string(u.memory) + "," +
           std::to_string(u.cores) + ":";
  }
  return out;
}

Result<CardUses> DecodeVgpuIds(const GpuCards& gpus, std::string_view text) {
  CardUses out;
  for (std::string_view container : Split(text, ';')) {
    for (std::string_view entry : Split(container, ':')) {
      if (entry.find(',') == std::string_view::npos) continue;
      std::vector<std::string_view> f = Split(entry, ',');
      CardUse u;
      if (f.size() < 4 || !ParseInt(f[2], &u.memory) || !ParseInt(f[3], &u.cores) || u.memory < 0 ||
          u.cores < 0) {
        return Status::InvalidArgument("expected \"uuid,type,memory,cores\" per card, got \"" +
                                       std::string(entry) + "\"");
      }
      u.card = gpus.Find(f[0]);
      if (u.card >= 0) out.push_back(u);
    }
  }
  return out;
}

bool FitShareMemory(const GpuCards& gpus, int64_t memory, CardUses* uses, std::string* reason) {
  uses->clear();
  const auto& cards = gpus.cards();
  for (size_t i = 0; i < cards.size(); ++i) {
    if (cards[i].memory - cards[i].used_memory >= memory) {
      uses->push_back({static_cast<int32_t>(i), memory, 0});
      return true;
    }
  }
  *reason = "insufficient GPU share: no GPU card has " + std::to_string(memory) + " MiB free";
  return false;
}

bool FitShareNumber(const GpuCards& gpus, int64_t count, CardUses* uses, std::string* reason) {
  uses->clear();
  const auto& cards = gpus.cards();
  for (size_t i = 0; i < cards.size() && static_cast<int64_t>(uses->size()) < count; ++i) {
    if (cards[i].sharers == 0) uses->push_back({static_cast<int32_t>(i), 0, 0});
  }
  if (static_cast<int64_t>(uses->size()) >= count) return true;
  uses->clear();
  *reason = "insufficient GPU share: fewer than " + std::to_string(count) + " idle GPU cards";
  return false;
}

std::string EncodeGpuIndex(const GpuCards& gpus, const CardUses& uses) {
  std::string out;
  for (const CardUse& u : uses) {
    if (!out.empty()) out += ",";
    out += gpus.cards().at(u.card).uuid;
  }
  return out;
}

Result<CardUses> DecodeGpuIndex(const GpuCards& gpus, std::string_view text, int64_t memory) {
  CardUses out;
  for (std::string_view id : Split(text, ',')) {
    int64_t v;
    if (!ParseInt(id, &v))
      return Status::InvalidArgument("expected card ids like \"0,1\", got \"" + std::string(text) +
                                     "\"");
    const std::string uuid = std::to_string(v);
    for (size_t i = 0; i < gpus.cards().size(); ++i) {
      if (gpus.cards()[i].uuid == uuid) out.push_back({static_cast<int32_t>(i), memory, 0});
    }
  }
  return out;
}

}  // namespace basalt
