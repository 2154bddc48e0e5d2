// Config secrets: the OpenSandbox API key (`sandbox_api_key`, alias
// `sandboxApiKey`) may sit in a config file, and config files are quoted in
// error excerpts and copied into facts files. SecretSpans finds every value
// assigned to such a key by a lexical scan that also works on text TOML
// cannot parse (an unterminated string, a repeated key); RedactSecrets
// replaces those values so nothing else in cwsc ever shows them:
//
//   sandbox_api_key = "sk-123"      ->   sandbox_api_key = "<redacted>"
//
// Line structure is kept (a multi-line value leaves empty lines), so line
// numbers of everything else stay valid; an unterminated value stays
// unterminated, so the redacted text fails to parse where the original did.
#ifndef CWSC_COMPILER_FACTS_CONFIG_SECRETS_H_
#define CWSC_COMPILER_FACTS_CONFIG_SECRETS_H_

#include <string>
#include <vector>

namespace cwsc::compiler {

// SecretSpan is the value text of one secret assignment, [begin, end) bytes.
struct SecretSpan {
  size_t begin = 0;
  size_t end = 0;
  int first_line = 0;  // 1-based
  int last_line = 0;
};

// IsSecretKeyName: sandbox_api_key in any spelling (case, '_' and '-' ignored).
bool IsSecretKeyName(const std::string& key);

std::vector<SecretSpan> SecretSpans(const std::string& text);

// RedactSecrets returns `text` with every secret value replaced.
std::string RedactSecrets(const std::string& text);

// MaskSecrets returns `text` with every byte of a secret value but quotes
// and newlines replaced by '*': lines and columns stay exact, for excerpts
// and their caret lines.
std::string MaskSecrets(const std::string& text);

// InSecretValue: whether 1-based line:col falls inside a secret value.
bool InSecretValue(const std::string& text, int line, int col);

// ScrubSecrets replaces, in `message`, every secret value of `text` (and each
// line of a multi-line one) with "<redacted>".
std::string ScrubSecrets(const std::string& text, std::string message);

}  // namespace cwsc::compiler

#endif  // CWSC_COMPILER_FACTS_CONFIG_SECRETS_H_
