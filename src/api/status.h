// Status and Result<T>: errors as values at the edges of basalt.
//
// Anything a user supplies (manifests, scheduler configuration, API responses)
// is decoded into a `Result<T>`; a failure carries a message a user can act on,
// prefixed with the file, the object and the field (see `WithContext`).
// An OK `Status` holds no allocation.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace basalt {

class [[nodiscard]] Status {
 public:
  enum class Code {
    kOk,
    kInvalidArgument,
    kNotFound,
    kAlreadyExists,
    kFailedPrecondition,
    kUnavailable,
    kInternal
  };

  Status() = default;
  static Status Ok() { return Status(); }
  static Status InvalidArgument(std::string msg) {
    return Status(Code::kInvalidArgument, std::move(msg));
  }
  static Status NotFound(std::string msg) { return Status(Code::kNotFound, std::move(msg)); }
  static Status AlreadyExists(std::string msg) {
    return Status(Code::kAlreadyExists, std::move(msg));
  }
  static Status FailedPrecondition(std::string msg) {
    return Status(Code::kFailedPrecondition, std::move(msg));
  }
  static Status Unavailable(std::string msg) { return Status(Code::kUnavailable, std::move(msg)); }
  static Status Internal(std::string msg) { return Status(Code::kInternal, std::move(msg)); }

  bool ok() const { return rep_ == nullptr; }
  Code code() const { return rep_ ? rep_->code : Code::kOk; }
  const std::string& message() const {
    static const std::string kEmpty;
    return rep_ ? rep_->message : kEmpty;
  }

  // Prefixes the message with `context` and ": " (e.g. "a.yaml: Pod ns/p: spec.priority").
  // An OK status stays OK.
  Status WithContext(std::string_view context) const {
    if (ok()) return *this;
    return Status(code(), std::string(context) + ": " + message());
  }

  std::string ToString() const { return ok() ? "OK" : message(); }

 private:
  struct Rep {
    Code code;
    std::string message;
  };
  Status(Code code, std::string msg) : rep_(std::make_shared<Rep>(Rep{code, std::move(msg)})) {}
  std::shared_ptr<const Rep> rep_;
};

// A value or the Status explaining why there is none.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}         // NOLINT: implicit by design
  Result(Status status) : v_(std::move(status)) {}  // NOLINT: implicit by design

  bool ok() const { return std::holds_alternative<T>(v_); }
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<Status>(v_);
  }
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<T, Status> v_;
};

#define BASALT_CONCAT_INNER(a, b) a##b
#define BASALT_CONCAT(a, b) BASALT_CONCAT_INNER(a, b)

#define BASALT_RETURN_IF_ERROR(expr) \
  do {                               \
    ::basalt::Status _st = (expr);   \
    if (!_st.ok()) return _st;       \
  } while (0)

#define BASALT_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                 \
  if (!tmp.ok()) return tmp.status();                \
  lhs = std::move(tmp).value()

#define BASALT_ASSIGN_OR_RETURN(lhs, expr) \
  BASALT_ASSIGN_OR_RETURN_IMPL(BASALT_CONCAT(_res_, __LINE__), lhs, expr)

}  // namespace basalt
