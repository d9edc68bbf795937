#include "api/go_regex.h"

#include <re2/re2.h>

namespace basalt {

namespace {

// Go's parser refuses a regexp tree higher than 1000; nesting groups is how a
// pattern gets there (RE2 has no such limit).
constexpr size_t kMaxGroupDepth = 999;

bool IsWordChar(char c) {
  return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

// Where Go and RE2 read a pattern differently, rewrites it into what RE2
// reads as Go does, or returns Go's reason for refusing it (empty: fine).
class GoSyntax {
 public:
  explicit GoSyntax(const std::string& pattern) : p_(pattern) {}

  std::string Rewrite(std::string* out) {
    while (i_ < p_.size()) {
      std::string why = p_[i_] == '\\'  ? Escape(out)
                        : p_[i_] == '[' ? CharClass(out)
                        : p_[i_] == '(' ? OpenGroup(out)
                                        : Plain(out);
      if (!why.empty()) return why;
    }
    return "";
  }

 private:
  // `\C` (one byte, even inside a UTF-8 sequence) is RE2's alone; `\Q...\E`
  // is copied whole, its text literal.
  std::string Escape(std::string* out) {
    if (i_ + 1 < p_.size() && p_[i_ + 1] == 'C') return "invalid escape sequence: `\\C`";
    if (i_ + 1 < p_.size() && p_[i_ + 1] == 'Q') {
      size_t end = p_.find("\\E", i_ + 2);
      end = end == std::string::npos ? p_.size() : end + 2;
      out->append(p_, i_, end - i_);
      i_ = end;
      return "";
    }
    out->append(p_, i_, std::min<size_t>(2, p_.size() - i_));
    i_ += 2;
    return "";
  }

  // A bracketed class: a leading `]` is literal, `[:name:]` nests.
  std::string CharClass(std::string* out) {
    size_t j = i_ + 1;
    if (j < p_.size() && p_[j] == '^') ++j;
    if (j < p_.size() && p_[j] == ']') ++j;
    while (j < p_.size() && p_[j] != ']') {
      if (p_[j] == '\\') {
        if (j + 1 < p_.size() && p_[j + 1] == 'C') return "invalid escape sequence: `\\C`";
        j += 2;
      } else if (p_.compare(j, 2, "[:") == 0 && p_.find(":]", j + 2) != std::string::npos) {
        j = p_.find(":]", j + 2) + 2;
      } else {
        ++j;
      }
    }
    j = std::min(j + 1, p_.size());
    out->append(p_, i_, j - i_);
    i_ = j;
    return "";
  }

  // Go (1.22 on) takes `(?<name>` as `(?P<name>`; both want ASCII word names.
  std::string OpenGroup(std::string* out) {
    if (++depth_ > kMaxGroupDepth) return "expression nests too deeply";
    size_t name_at = 0;
    if (p_.compare(i_, 3, "(?<") == 0 && i_ + 3 < p_.size() && p_[i_ + 3] != '=' &&
        p_[i_ + 3] != '!') {
      name_at = i_ + 3;
    } else if (p_.compare(i_, 4, "(?P<") == 0) {
      name_at = i_ + 4;
    }
    if (name_at == 0) {
      out->push_back('(');
      ++i_;
      return "";
    }
    size_t close = p_.find('>', name_at);
    if (close == std::string::npos) return "invalid named capture: `" + p_.substr(i_) + "`";
    std::string name = p_.substr(name_at, close - name_at);
    bool valid = !name.empty();
    for (char c : name) valid = valid && IsWordChar(c);
    if (!valid) return "invalid named capture: `" + p_.substr(i_, close + 1 - i_) + "`";
    *out += "(?P<" + name + ">";
    i_ = close + 1;
    return "";
  }

  std::string Plain(std::string* out) {
    if (p_[i_] == ')' && depth_ > 0) --depth_;
    out->push_back(p_[i_++]);
    return "";
  }

  const std::string& p_;
  size_t i_ = 0;
  size_t depth_ = 0;
};

}  // namespace

Result<GoRegex> GoRegex::Compile(const std::string& pattern) {
  std::string for_re2;
  std::string why = GoSyntax(pattern).Rewrite(&for_re2);
  if (!why.empty()) return Status::InvalidArgument(why);
  RE2::Options options;  // Perl syntax, UTF-8, leftmost-first: Go's regexp.Compile
  options.set_log_errors(false);
  auto compiled = std::make_shared<const RE2>(for_re2, options);
  if (!compiled->ok()) return Status::InvalidArgument(compiled->error());
  return GoRegex(pattern, std::move(compiled));
}

bool GoRegex::Search(std::string_view text) const {
  return RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), *compiled_);
}

}  // namespace basalt
