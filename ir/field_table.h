// Field tables: one list of (name, member pointer) per struct, read by every
// piece of code that must visit all of a struct's fields (the plan's JSON
// writer and reader, layering). A field missing from its table would be
// dropped silently, so each table is checked against the struct itself:
//
//   constexpr auto kFields = std::make_tuple(Field("path", &Root::path), ...);
//   static_assert(FieldCount<Root>() == std::tuple_size_v<decltype(kFields)>);
//
// FieldCount counts an aggregate's members by brace-initializing it with
// more and more placeholders that convert to any type.
#ifndef CWSC_IR_FIELD_TABLE_H_
#define CWSC_IR_FIELD_TABLE_H_

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

namespace cwsc::ir {

// FieldRef names one data member of S.
template <typename S, typename M>
struct FieldRef {
  using Struct = S;
  using Member = M;
  const char* name;
  M S::*member;
};

template <typename S, typename M>
constexpr FieldRef<S, M> Field(const char* name, M S::*member) {
  return {name, member};
}

namespace field_table_internal {

// AnyMember converts to any member type (only in unevaluated contexts).
struct AnyMember {
  template <typename T>
  operator T() const;  // NOLINT: implicit on purpose
};

template <typename T, typename... A>
constexpr std::size_t Count() {
  if constexpr (requires { T{std::declval<A>()..., std::declval<AnyMember>()}; }) {
    return Count<T, A..., AnyMember>();
  } else {
    return sizeof...(A);
  }
}

}  // namespace field_table_internal

// FieldCount is the number of members of the aggregate T.
template <typename T>
constexpr std::size_t FieldCount() {
  static_assert(std::is_aggregate_v<T>, "field tables describe aggregates");
  return field_table_internal::Count<T>();
}

// ForEachField calls f(field) for every entry of a tuple of FieldRefs.
template <typename Table, typename F>
constexpr void ForEachField(const Table& table, F&& f) {
  std::apply([&](const auto&... field) { (f(field), ...); }, table);
}

}  // namespace cwsc::ir

#endif  // CWSC_IR_FIELD_TABLE_H_
