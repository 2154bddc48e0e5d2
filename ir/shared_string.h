// SharedString is an immutable string whose copies share one buffer. The
// provenance of a plan (an origin's key and file, a mount's reason) is
// copied onto every element it explains, tens of thousands of times in a
// large policy; copying a SharedString counts a reference instead of
// allocating and copying the text (docs/performance.md).
//
//   ir::SharedString why = "protected descendant stays read-only";
//   ir::SharedString copy = why;       // no allocation
//   const std::string& s = copy;       // reads as a std::string
//   absl::StrCat(copy.str(), "...");   // str() where a conversion is not enough
#ifndef CWSC_IR_SHARED_STRING_H_
#define CWSC_IR_SHARED_STRING_H_

#include <memory>
#include <ostream>
#include <string>
#include <string_view>

#include "absl/strings/string_view.h"

namespace cwsc::ir {

class SharedString {
 public:
  SharedString() = default;
  // Implicit: a SharedString stands wherever a string did.
  SharedString(std::string s)  // NOLINT(google-explicit-constructor)
      : rep_(s.empty() ? nullptr : std::make_shared<const std::string>(std::move(s))) {}
  SharedString(const char* s) : SharedString(std::string(s)) {}       // NOLINT
  SharedString(std::string_view s) : SharedString(std::string(s)) {}  // NOLINT

  const std::string& str() const { return rep_ ? *rep_ : Empty(); }
  operator const std::string&() const { return str(); }  // NOLINT
  bool empty() const { return rep_ == nullptr; }
  size_t size() const { return str().size(); }
  const char* data() const { return str().data(); }
  const char* c_str() const { return str().c_str(); }
  operator absl::string_view() const { return str(); }  // NOLINT
  const char& operator[](size_t i) const { return str()[i]; }
  void clear() { rep_.reset(); }
  size_t rfind(char c, size_t pos = std::string::npos) const { return str().rfind(c, pos); }
  // Shares: whether both are one copy of the text (a test's question).
  bool Shares(const SharedString& other) const { return rep_ != nullptr && rep_ == other.rep_; }

  friend bool operator==(const SharedString& a, const SharedString& b) {
    return a.rep_ == b.rep_ || a.str() == b.str();
  }
  friend bool operator==(const SharedString& a, const std::string& b) { return a.str() == b; }
  friend bool operator==(const SharedString& a, std::string_view b) { return a.str() == b; }
  friend bool operator==(const SharedString& a, const char* b) { return a.str() == b; }
  friend std::string operator+(const SharedString& a, const char* b) { return a.str() + b; }
  friend std::string operator+(const SharedString& a, const std::string& b) { return a.str() + b; }
  friend std::string operator+(const std::string& a, const SharedString& b) { return a + b.str(); }
  friend std::string operator+(const char* a, const SharedString& b) { return a + b.str(); }
  friend std::ostream& operator<<(std::ostream& os, const SharedString& s) { return os << s.str(); }

 private:
  static const std::string& Empty() {
    static const std::string* empty = new std::string();
    return *empty;
  }
  std::shared_ptr<const std::string> rep_;
};

}  // namespace cwsc::ir

#endif  // CWSC_IR_SHARED_STRING_H_
