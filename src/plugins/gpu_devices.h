// Per-GPU accounting: the cards of one node, what each pod holds on them, and
// the fit and score rules Volcano's device sharing applies to them
// (pkg/scheduler/api/devices/nvidia/vgpu and .../gpushare). Pure values with
// no session in sight, so the deviceshare plugin and the simulators can share
// them; docs/plugins/deviceshare.md describes the behaviour.
//
// Two families of shared GPUs exist in Volcano and here:
//  * vGPU (HAMi-core): the device plugin registers each card in the node
//    annotation `volcano.sh/node-vgpu-register` as
//      "<uuid>,<max sharers>,<memory MiB>,<type>,<healthy>[,<mode>]:" per card;
//    a pod asks `volcano.sh/vgpu-number` cards with `volcano.sh/vgpu-memory`
//    MiB (or `volcano.sh/vgpu-memory-percentage` of a card) and
//    `volcano.sh/vgpu-cores` percent of compute on each; the cards it got are
//    written to its annotation `volcano.sh/vgpu-ids-new` as
//      "<uuid>,NVIDIA,<memory MiB>,<cores>:" per card.
//  * gpushare (legacy): the node's capacity `volcano.sh/gpu-memory` (total
//    MiB) over `volcano.sh/gpu-number` equal cards; a pod asks
//    `volcano.sh/gpu-memory` MiB on one card or `volcano.sh/gpu-number` idle
//    cards; the card indexes go to its annotation `volcano.sh/gpu-index`.
//
// All quantities are integers: memory in MiB, cores in percent of one card.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/resource.h"
#include "api/status.h"

namespace basalt {

// Resource and annotation names (Volcano's).
inline constexpr char kVgpuNumberResource[] = "volcano.sh/vgpu-number";
inline constexpr char kVgpuMemoryResource[] = "volcano.sh/vgpu-memory";
inline constexpr char kVgpuMemoryPercentageResource[] = "volcano.sh/vgpu-memory-percentage";
inline constexpr char kVgpuCoresResource[] = "volcano.sh/vgpu-cores";
inline constexpr char kShareMemoryResource[] = "volcano.sh/gpu-memory";
inline constexpr char kShareNumberResource[] = "volcano.sh/gpu-number";
inline constexpr char kVgpuRegisterAnnotation[] = "volcano.sh/node-vgpu-register";
inline constexpr char kVgpuHandshakeAnnotation[] = "volcano.sh/node-vgpu-handshake";
inline constexpr char kVgpuIdsAnnotation[] = "volcano.sh/vgpu-ids-new";
inline constexpr char kVgpuNodeAnnotation[] = "volcano.sh/vgpu-node";
inline constexpr char kVgpuModeAnnotation[] = "volcano.sh/vgpu-mode";
inline constexpr char kUseGpuTypeAnnotation[] = "nvidia.com/use-gputype";
inline constexpr char kNoUseGpuTypeAnnotation[] = "nvidia.com/nouse-gputype";
inline constexpr char kGpuIndexAnnotation[] = "volcano.sh/gpu-index";
inline constexpr char kUnhealthyGpuIdsAnnotation[] = "volcano.sh/gpu-unhealthy-ids";
// The only vGPU sharing mode basalt models: a `mig` card in the register
// annotation falls back to it, as Volcano does without a MIG geometry config.
inline constexpr char kHamiCoreMode[] = "hami-core";

struct GpuCard {
  std::string uuid;
  std::string type;         // e.g. "NVIDIA-Tesla V100"
  int64_t memory = 0;       // MiB
  int64_t max_sharers = 0;  // pods that may share the card; 0 = no limit (gpushare)
  bool healthy = true;
  // Usage, kept by GpuCards::Add / Remove.
  int64_t used_memory = 0;
  int64_t used_cores = 0;
  int64_t sharers = 0;
};

// One card's share of one pod.
struct CardUse {
  int32_t card = 0;  // index into GpuCards::cards()
  int64_t memory = 0;
  int64_t cores = 0;
  bool operator==(const CardUse&) const = default;
};
using CardUses = std::vector<CardUse>;

// The cards of one node, in registration order.
class GpuCards {
 public:
  GpuCards() = default;
  explicit GpuCards(std::vector<GpuCard> cards) : cards_(std::move(cards)) {}

  // Parses `volcano.sh/node-vgpu-register`. Errors name the record and field
  // ("card 2: memory: expected an integer, got \"x\""). No card is an error.
  static Result<GpuCards> FromVgpuRegister(std::string_view text);
  // gpushare: `count` cards of total/count MiB each, minus the ids listed in
  // `unhealthy_ids` ("1,3"; ids that are not numbers are skipped, as Volcano
  // does). The cards keep their ids as uuids ("0", "1", ...).
  static GpuCards Uniform(int64_t count, int64_t total_memory, std::string_view unhealthy_ids);

  const std::vector<GpuCard>& cards() const { return cards_; }
  bool empty() const { return cards_.empty(); }
  // Index of the card with this uuid, or -1.
  int32_t Find(std::string_view uuid) const;

  // Adds / removes one pod's uses (each use counts one sharer on its card).
  // Remove never takes a card below zero.
  void Add(const CardUses& uses);
  void Remove(const CardUses& uses);

 private:
  std::vector<GpuCard> cards_;
};

// ---- vGPU ----

enum class DevicePolicy { kNone, kBinpack, kSpread };
// "binpack" / "spread" / "" (none); anything else is nullopt.
std::optional<DevicePolicy> ParseDevicePolicy(std::string_view text);

struct VgpuRequest {
  static constexpr int64_t kUnsetPercent = 101;  // Volcano's marker for "no percentage given"
  int64_t count = 0;                             // cards, each on a distinct card
  int64_t memory = 0;                            // MiB per card (0: see memory_percent)
  int64_t memory_percent = kUnsetPercent;        // of each card's memory when memory is 0
  int64_t cores = 0;                             // percent of each card
  std::vector<std::string> use_types;            // nvidia.com/use-gputype (any may match)
  std::vector<std::string> nouse_types;          // nvidia.com/nouse-gputype (none may match)
  std::string mode;                              // volcano.sh/vgpu-mode; "" = any
};

// The pod's vGPU request from its summed resource request and annotations, or
// nullopt when it asks neither vgpu-number nor vgpu-memory. vgpu-memory alone
// means one card; neither memory nor a percentage means the whole card (100%).
std::optional<VgpuRequest> VgpuRequestOf(const Resource& request,
                                         const std::map<std::string, std::string>& annotations);

// Volcano's card walk: cards from the last registered to the first; a card
// takes the pod when it has a free sharer slot, the memory, the cores (100
// means the card alone), is not already at 100% cores for a pod asking none,
// and its type passes the use/nouse annotations (and contains "NVIDIA"). A
// pod asking a mode other than hami-core fits no card.
// Unhealthy cards are skipped. On success `*uses` holds `count` distinct cards.
// On failure `*reason` says what no card (or too few cards) could give.
bool FitVgpu(const GpuCards& cards, const VgpuRequest& request, CardUses* uses,
             std::string* reason);

// Volcano's device score of a placement, before weight and rounding: per card
// taken, binpack adds 100 * used memory / card memory after the pod lands;
// spread adds 100 when the pod is the card's only sharer.
double VgpuScore(const GpuCards& cards, const CardUses& uses, DevicePolicy policy);

// `volcano.sh/vgpu-ids-new` of a placement, and back. Decoding is as lenient
// as Volcano's for entries naming unknown cards (skipped); a malformed entry
// is an error.
std::string EncodeVgpuIds(const GpuCards& cards, const CardUses& uses);
Result<CardUses> DecodeVgpuIds(const GpuCards& cards, std::string_view text);

// ---- gpushare ----

// Memory sharing: the lowest-numbered card whose free memory holds `memory`.
bool FitShareMemory(const GpuCards& cards, int64_t memory, CardUses* uses, std::string* reason);
// Whole cards: the `count` lowest-numbered cards nobody uses.
bool FitShareNumber(const GpuCards& cards, int64_t count, CardUses* uses, std::string* reason);
// `volcano.sh/gpu-index` ("0,2"), and back into uses of `memory` MiB each
// (unknown ids skipped; a non-number is an error).
std::string EncodeGpuIndex(const GpuCards& cards, const CardUses& uses);
Result<CardUses> DecodeGpuIndex(const GpuCards& cards, std::string_view text, int64_t memory);

}  // namespace basalt
