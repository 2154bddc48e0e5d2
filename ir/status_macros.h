// CWSC_RETURN_IF_ERROR / CWSC_ASSIGN_OR_RETURN: early return on a non-OK
// absl::Status or absl::StatusOr (Debian 12's Abseil has no public macros).
#ifndef CWSC_IR_STATUS_MACROS_H_
#define CWSC_IR_STATUS_MACROS_H_

#define CWSC_STATUS_CONCAT_INNER_(a, b) a##b
#define CWSC_STATUS_CONCAT_(a, b) CWSC_STATUS_CONCAT_INNER_(a, b)

#define CWSC_RETURN_IF_ERROR(expr)               \
  do {                                           \
    ::absl::Status cwsc_status_ = (expr);        \
    if (!cwsc_status_.ok()) return cwsc_status_; \
  } while (0)

#define CWSC_ASSIGN_OR_RETURN(lhs, expr) \
  CWSC_ASSIGN_OR_RETURN_IMPL_(CWSC_STATUS_CONCAT_(cwsc_statusor_, __LINE__), lhs, expr)

#define CWSC_ASSIGN_OR_RETURN_IMPL_(var, lhs, expr) \
  auto var = (expr);                                \
  if (!var.ok()) return var.status();               \
  lhs = std::move(var).value()

#endif  // CWSC_IR_STATUS_MACROS_H_
