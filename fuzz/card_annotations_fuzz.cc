// Fuzz target: the card annotations (`volcano.sh/card.quota`, `card.request`,
// `card.name`) that admission reads from user objects.
#include <cstddef>
#include <cstdint>
#include <string>

#include "api/card_annotations.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  (void)basalt::ParseCardQuota(text);
  (void)basalt::ParseCardRequest(text);
  (void)basalt::ParseCardName(text);
  (void)basalt::CheckCardModel(text);
  return 0;
}
