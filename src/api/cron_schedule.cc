#include "api/cron_schedule.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>

#include "api/go_duration.h"
#include "api/text.h"

namespace basalt {
namespace {

constexpr uint64_t kStar = uint64_t{1} << 63;

struct Bounds {
  unsigned min, max;
  std::vector<std::string> names;  // index + min = value
};

const Bounds kMinutes{0, 59, {}}, kHours{0, 23, {}}, kDays{1, 31, {}};
const Bounds kMonths{
    1, 12, {"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}};
const Bounds kWeekdays{0, 6, {"sun", "mon", "tue", "wed", "thu", "fri", "sat"}};

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

Result<unsigned> ParseNumber(const std::string& s) {
  if (s.empty() || s.size() > 9 || !std::all_of(s.begin(), s.end(), ::isdigit))
    return Status::InvalidArgument("failed to parse int from " + s);
  return static_cast<unsigned>(std::stoul(s));
}

Result<unsigned> ParseValue(const std::string& s, const Bounds& b) {
  const std::string l = Lower(s);
  for (size_t i = 0; i < b.names.size(); ++i) {
    if (b.names[i] == l) return static_cast<unsigned>(i) + b.min;
  }
  return ParseNumber(s);
}

// One comma-separated piece: "*", "a", "a-b", each with an optional "/step".
Result<uint64_t> ParseRange(const std::string& expr, const Bounds& b) {
  const std::vector<std::string> range_and_step = Split(expr, '/');
  const std::vector<std::string> low_high = Split(range_and_step[0], '-');
  unsigned start = 0, end = 0, step = 1;
  uint64_t extra = 0;
  if (low_high[0] == "*" || low_high[0] == "?") {
    start = b.min;
    end = b.max;
    extra = kStar;
  } else {
    if (low_high.size() > 2) return Status::InvalidArgument("too many hyphens: " + expr);
    BASALT_ASSIGN_OR_RETURN(start, ParseValue(low_high[0], b));
    end = start;
    if (low_high.size() == 2) {
      BASALT_ASSIGN_OR_RETURN(end, ParseValue(low_high[1], b));
    }
  }
  if (range_and_step.size() > 2) return Status::InvalidArgument("too many slashes: " + expr);
  if (range_and_step.size() == 2) {
    BASALT_ASSIGN_OR_RETURN(step, ParseNumber(range_and_step[1]));
    if (low_high.size() == 1) end = b.max;  // "N/step" runs to the maximum
    if (step > 1) extra = 0;
  }
  auto n = [](unsigned v) { return std::to_string(v); };
  if (start < b.min)
    return Status::InvalidArgument("beginning of range (" + n(start) + ") below minimum (" +
                                   n(b.min) + "): " + expr);
  if (end > b.max)
    return Status::InvalidArgument("end of range (" + n(end) + ") above maximum (" + n(b.max) +
                                   "): " + expr);
  if (start > end)
    return Status::InvalidArgument("beginning of range (" + n(start) + ") beyond end of range (" +
                                   n(end) + "): " + expr);
  if (step == 0)
    return Status::InvalidArgument("step of range should be a positive number: " + expr);
  uint64_t bits = extra;
  for (unsigned v = start; v <= end; v += step) bits |= uint64_t{1} << v;
  return bits;
}

Result<uint64_t> ParseField(const std::string& field, const Bounds& b) {
  uint64_t bits = 0;
  for (const std::string& piece : Split(field, ',')) {
    BASALT_ASSIGN_OR_RETURN(uint64_t r, ParseRange(piece, b));
    bits |= r;
  }
  return bits;
}

Result<CronSchedule> FromFields(const std::vector<std::string>& f) {
  CronSchedule s;
  BASALT_ASSIGN_OR_RETURN(s.minutes, ParseField(f[0], kMinutes));
  BASALT_ASSIGN_OR_RETURN(s.hours, ParseField(f[1], kHours));
  BASALT_ASSIGN_OR_RETURN(s.days_of_month, ParseField(f[2], kDays));
  BASALT_ASSIGN_OR_RETURN(s.months, ParseField(f[3], kMonths));
  BASALT_ASSIGN_OR_RETURN(s.days_of_week, ParseField(f[4], kWeekdays));
  s.dom_star = (s.days_of_month & kStar) != 0;
  s.dow_star = (s.days_of_week & kStar) != 0;
  return s;
}

Result<CronSchedule> FromDescriptor(const std::string& spec) {
  static const std::vector<std::pair<std::string, std::string>> kDescriptors = {
      {"@yearly", "0 0 1 1 *"}, {"@annually", "0 0 1 1 *"}, {"@monthly", "0 0 1 * *"},
      {"@weekly", "0 0 * * 0"}, {"@daily", "0 0 * * *"},    {"@midnight", "0 0 * * *"},
      {"@hourly", "0 * * * *"}};
  for (const auto& [name, fields] : kDescriptors) {
    if (spec == name) return ParseCronSchedule(fields);
  }
  const std::string every = "@every ";
  if (spec.rfind(every, 0) == 0) {
    const std::string text = spec.substr(every.size());
    auto d = ParseGoDuration(text, "duration");
    if (!d.ok())
      return Status::InvalidArgument("failed to parse duration " + spec + ": " +
                                     d.status().message());
    CronSchedule s;
    s.every_seconds = std::max<int64_t>(1, *d / 1000000000);  // whole seconds, at least one
    return s;
  }
  return Status::InvalidArgument("unrecognized descriptor: " + spec);
}

// ---- civil time (proleptic Gregorian), days since 1970-01-01 ----

struct Civil {
  int64_t year;
  unsigned month, day;
};

Civil CivilFromDays(int64_t z) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  const unsigned d = static_cast<unsigned>(doy - (153 * mp + 2) / 5 + 1);
  const unsigned m = static_cast<unsigned>(mp < 10 ? mp + 3 : mp - 9);
  return {yoe + era * 400 + (m <= 2), m, d};
}

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

bool DayMatches(const CronSchedule& s, int64_t day) {
  const Civil c = CivilFromDays(day);
  if (!((s.months >> c.month) & 1)) return false;
  const unsigned weekday = static_cast<unsigned>(((day + 4) % 7 + 7) % 7);  // 1970-01-01: Thursday
  const bool dom = (s.days_of_month >> c.day) & 1, dow = (s.days_of_week >> weekday) & 1;
  return s.dom_star || s.dow_star ? dom && dow : dom || dow;
}

// ---- zone files (TZif, RFC 8536) ----

int64_t ReadBig(const std::string& data, size_t at, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v = v << 8 | static_cast<unsigned char>(data[at + i]);
  if (bytes == 4) return static_cast<int32_t>(static_cast<uint32_t>(v));
  return static_cast<int64_t>(v);
}

}  // namespace

Result<CronSchedule> ParseCronSchedule(std::string_view text) {
  const std::string spec = std::string(Trim(text));
  if (spec.empty()) return Status::InvalidArgument("empty spec string");
  if (spec[0] == '@') return FromDescriptor(spec);
  std::istringstream in(spec);
  std::vector<std::string> fields{std::istream_iterator<std::string>(in), {}};
  if (fields.size() != 5) {
    std::string list;
    for (const std::string& f : fields) list += (list.empty() ? "" : " ") + f;
    return Status::InvalidArgument("expected exactly 5 fields, found " +
                                   std::to_string(fields.size()) + ": [" + list + "]");
  }
  return FromFields(fields);
}

Result<TimeZone> TimeZone::Load(const std::string& name) {
  TimeZone tz;
  if (name.empty() || name == "UTC") return tz;
  const Status unknown = Status::InvalidArgument("unknown time zone " + name);
  if (name.find("..") != std::string::npos || name[0] == '/' || name == "Local") return unknown;
  const char* dir = std::getenv("ZONEINFO");
  std::ifstream f(std::string(dir != nullptr ? dir : "/usr/share/zoneinfo") + "/" + name,
                  std::ios::binary);
  const std::string data{std::istreambuf_iterator<char>(f), {}};
  if (data.size() < 44 || data.compare(0, 4, "TZif") != 0) return unknown;
  auto counts = [&](size_t at, int64_t* c) {
    for (int i = 0; i < 6; ++i) c[i] = ReadBig(data, at + 20 + 4 * i, 4);
  };
  int64_t c[6];  // isutcnt isstdcnt leapcnt timecnt typecnt charcnt
  counts(0, c);
  size_t at = 44;
  int time_size = 4;
  if (data[4] >= '2') {  // skip the 32-bit block; use the 64-bit one
    at += c[3] * 4 + c[3] + c[4] * 6 + c[5] + c[2] * 8 + c[1] + c[0];
    if (data.size() < at + 44) return unknown;
    counts(at, c);
    at += 44;
    time_size = 8;
  }
  const size_t need = at + c[3] * time_size + c[3] + c[4] * 6;
  if (c[4] <= 0 || data.size() < need) return unknown;
  std::vector<int32_t> type_offset(c[4]);
  const size_t types_at = at + c[3] * time_size + c[3];
  for (int64_t i = 0; i < c[4]; ++i)
    type_offset[i] = static_cast<int32_t>(ReadBig(data, types_at + 6 * i, 4));
  for (int64_t i = 0; i < c[3]; ++i) {
    const unsigned idx = static_cast<unsigned char>(data[at + c[3] * time_size + i]);
    if (idx >= type_offset.size()) return unknown;
    tz.transitions_.push_back(ReadBig(data, at + i * time_size, time_size));
    tz.offset_after_.push_back(type_offset[idx]);
  }
  tz.offset_before_ = type_offset[0];
  tz.name_ = name;
  return tz;
}

int64_t TimeZone::OffsetAt(int64_t utc) const {
  auto it = std::upper_bound(transitions_.begin(), transitions_.end(), utc);
  if (it == transitions_.begin()) return offset_before_;
  return offset_after_[std::distance(transitions_.begin(), it) - 1];
}

std::optional<int64_t> NextCronTime(const CronSchedule& s, const TimeZone& zone, int64_t after) {
  if (s.every_seconds > 0) return after + s.every_seconds;
  // Local minutes: the first whole minute after `after`.
  const int64_t local = after + zone.OffsetAt(after);
  const int64_t first_minute = FloorDiv(local, 60) + 1;
  const int64_t first_day = FloorDiv(first_minute, 1440);
  for (int64_t day = first_day; day <= first_day + 5 * 366 + 1; ++day) {
    if (!DayMatches(s, day)) continue;
    const int64_t from = day == first_day ? first_minute - day * 1440 : 0;
    for (int64_t m = from; m < 1440; ++m) {
      if (!((s.hours >> (m / 60)) & 1) || !((s.minutes >> (m % 60)) & 1)) continue;
      const int64_t wall = (day * 1440 + m) * 60;
      const int64_t utc = wall - zone.OffsetAt(wall - zone.OffsetAt(wall));
      if (utc > after) return utc;
    }
  }
  return std::nullopt;
}

std::string FormatRfc3339(int64_t utc, const TimeZone& zone) {
  const int64_t offset = zone.OffsetAt(utc);
  const int64_t local = utc + offset;
  const int64_t day = FloorDiv(local, 86400), sec = local - day * 86400;
  const Civil c = CivilFromDays(day);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04lld-%02u-%02uT%02lld:%02lld:%02lld",
                static_cast<long long>(c.year), c.month, c.day, static_cast<long long>(sec / 3600),
                static_cast<long long>(sec / 60 % 60), static_cast<long long>(sec % 60));
  std::string out = buf;
  if (offset == 0) return out + "Z";
  const int64_t a = offset < 0 ? -offset : offset;
  std::snprintf(buf, sizeof buf, "%c%02lld:%02lld", offset < 0 ? '-' : '+',
                static_cast<long long>(a / 3600), static_cast<long long>(a / 60 % 60));
  return out + buf;
}

}  // namespace basalt
