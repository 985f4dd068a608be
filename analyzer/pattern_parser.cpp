// The pattern text format: a small tokenizer and a recursive-descent parser that checks each
// pattern's sequences for consistency and reports every problem with its line.
#include <cctype>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "analyzer/pattern.h"
#include "trace_format/error.h"

namespace pecan {
namespace {

// Limits that keep a user pattern's search bounded; longer patterns are refused with a message.
constexpr size_t kMaxPatternEvents = 6;
constexpr size_t kMinPatternEvents = 2;

struct Token {
  enum Kind { kWord, kString, kPunct, kEnd } kind;
  std::string text;
  int line;
};

class Tokenizer {
 public:
  Tokenizer(std::string_view text, const std::string& source) : text_(text), source_(source) {}

  std::vector<Token> Run() {
    std::vector<Token> tokens;
    while (true) {
      SkipSpaceAndComments();
      if (pos_ >= text_.size()) break;
      const char c = text_[pos_];
      if (c == '"') {
        tokens.push_back(ReadString());
      } else if (c == '{' || c == '}' || c == ':' || c == ';') {
        tokens.push_back(Token{Token::kPunct, std::string(1, c), line_});
        ++pos_;
      } else if (IsWordChar(c)) {
        const size_t start = pos_;
        while (pos_ < text_.size() && IsWordChar(text_[pos_])) ++pos_;
        tokens.push_back(
            Token{Token::kWord, std::string(text_.substr(start, pos_ - start)), line_});
      } else {
        throw PecanError(source_ + ":" + std::to_string(line_) + ": unexpected character '" +
                         std::string(1, c) + "'");
      }
    }
    tokens.push_back(Token{Token::kEnd, "end of file", line_});
    return tokens;
  }

 private:
  static bool IsWordChar(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '\'' ||
           c == '*' || c == '.';
  }

  void SkipSpaceAndComments() {
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == '\n') {
        ++line_;
        ++pos_;
      } else if (std::isspace(static_cast<unsigned char>(c))) {
        ++pos_;
      } else if (c == '#') {
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
      } else {
        return;
      }
    }
  }

  Token ReadString() {
    const int line = line_;
    ++pos_;
    std::string value;
    while (pos_ < text_.size() && text_[pos_] != '"') {
      if (text_[pos_] == '\n') break;
      value += text_[pos_++];
    }
    if (pos_ >= text_.size() || text_[pos_] != '"') {
      throw PecanError(source_ + ":" + std::to_string(line) + ": unterminated string");
    }
    ++pos_;
    return Token{Token::kString, value, line};
  }

  std::string_view text_;
  const std::string& source_;
  size_t pos_ = 0;
  int line_ = 1;
};

class Parser {
 public:
  Parser(std::vector<Token> tokens, const std::string& source)
      : tokens_(std::move(tokens)), source_(source) {}

  std::vector<Pattern> Run() {
    std::vector<Pattern> patterns;
    while (Peek().kind != Token::kEnd) patterns.push_back(ParsePattern());
    return patterns;
  }

 private:
  [[noreturn]] void Fail(int line, const std::string& what) const {
    throw PecanError(source_ + ":" + std::to_string(line) + ": " + what);
  }

  const Token& Peek() const { return tokens_[pos_]; }
  const Token& Next() { return tokens_[pos_ < tokens_.size() - 1 ? pos_++ : pos_]; }

  void Expect(const std::string& punct) {
    const Token& t = Next();
    if (t.kind != Token::kPunct || t.text != punct) {
      Fail(t.line, "expected '" + punct + "' but found '" + t.text + "'");
    }
  }

  bool AtPunct(const std::string& punct) const {
    return Peek().kind == Token::kPunct && Peek().text == punct;
  }

  Pattern ParsePattern() {
    const Token& keyword = Next();
    if (keyword.kind != Token::kWord || keyword.text != "pattern") {
      Fail(keyword.line, "expected 'pattern' but found '" + keyword.text + "'");
    }
    Pattern p;
    const int start_line = keyword.line;
    p.source = source_ + ":" + std::to_string(start_line);
    const Token& name = Next();
    if (name.kind != Token::kWord) Fail(name.line, "expected a pattern name after 'pattern'");
    p.name = name.text;
    std::optional<std::string> variant;
    if (Peek().kind == Token::kWord && Peek().text == "variant") {
      Next();
      const Token& v = Next();
      if (v.kind != Token::kString) Fail(v.line, "expected a quoted variant name after 'variant'");
      variant = v.text;
    }
    Expect("{");

    std::map<std::string, std::pair<int, std::vector<Token>>> sequences;
    while (!AtPunct("}")) {
      const Token& key = Next();
      if (key.kind == Token::kEnd)
        Fail(key.line, "pattern '" + p.name + "' is not closed with '}'");
      if (key.kind != Token::kWord)
        Fail(key.line, "expected a sequence name or option, found '" + key.text + "'");
      if (key.text == "adjacent" || key.text == "unordered" || key.text == "some-plain") {
        if (key.text == "adjacent") p.adjacent = true;
        if (key.text == "unordered") p.unordered = true;
        if (key.text == "some-plain") p.some_plain = true;
        Expect(";");
        continue;
      }
      if (key.text != "E" && key.text != "T" && key.text != "SV" && key.text != "AR" &&
          key.text != "AT") {
        Fail(key.line, "unknown sequence or option '" + key.text +
                           "' (expected E, T, SV, AR, AT, adjacent, unordered or some-plain)");
      }
      if (sequences.count(key.text)) Fail(key.line, "sequence " + key.text + " given twice");
      Expect(":");
      std::vector<Token> items;
      while (Peek().kind == Token::kWord) items.push_back(Next());
      if (items.empty()) Fail(key.line, "sequence " + key.text + " is empty");
      Expect(";");
      sequences[key.text] = {key.line, std::move(items)};
    }
    Expect("}");

    for (const char* required : {"T", "SV", "AR", "AT"}) {
      if (!sequences.count(required)) {
        Fail(start_line, "pattern '" + p.name + "' has no " + required + " sequence");
      }
    }
    const size_t k = sequences["AT"].second.size();
    for (const auto& [key, entry] : sequences) {
      if (entry.second.size() != k) {
        Fail(entry.first, "sequence " + key + " has " + std::to_string(entry.second.size()) +
                              " entries but AT has " + std::to_string(k));
      }
    }
    if (k < kMinPatternEvents || k > kMaxPatternEvents) {
      Fail(start_line, "pattern '" + p.name + "' has " + std::to_string(k) +
                           " events; between 2 and " + std::to_string(kMaxPatternEvents) +
                           " are supported");
    }
    for (const Token& t : sequences["AT"].second) {
      if (t.text == "r") {
        p.access.push_back(AccessMatch::kRead);
      } else if (t.text == "w") {
        p.access.push_back(AccessMatch::kWrite);
      } else if (t.text == "*") {
        p.access.push_back(AccessMatch::kAny);
      } else {
        Fail(t.line, "access type '" + t.text + "' is not r, w or *");
      }
    }
    p.thread = Number(sequences["T"].second, &p.thread_count);
    p.variable = Number(sequences["SV"].second, &p.variable_count);
    p.region = Number(sequences["AR"].second, &p.region_count);
    if (sequences.count("E")) {
      for (const Token& t : sequences["E"].second) p.event_names.push_back(t.text);
    } else {
      for (size_t i = 0; i < k; ++i) p.event_names.push_back("e" + std::to_string(i + 1));
    }
    const int region_line = sequences["AR"].first;
    for (size_t i = 0; i < k; ++i) {
      for (size_t j = i + 1; j < k; ++j) {
        if (p.region[i] == p.region[j] && p.thread[i] != p.thread[j]) {
          Fail(region_line, "events " + p.event_names[i] + " and " + p.event_names[j] +
                                " share a region but not a thread");
        }
      }
    }
    if (p.thread_count < 2) {
      Fail(sequences["T"].first, "pattern '" + p.name + "' needs at least two threads");
    }
    if (p.unordered && k != 2)
      Fail(start_line, "'unordered' is supported for 2-event patterns only");
    p.variant = variant ? *variant : DefaultVariant(p.access);
    return p;
  }

  static std::vector<uint32_t> Number(const std::vector<Token>& items, uint32_t* count) {
    std::map<std::string, uint32_t> ids;
    std::vector<uint32_t> out;
    for (const Token& t : items) {
      auto [it, inserted] = ids.emplace(t.text, static_cast<uint32_t>(ids.size()));
      out.push_back(it->second);
    }
    *count = static_cast<uint32_t>(ids.size());
    return out;
  }

  std::vector<Token> tokens_;
  const std::string& source_;
  size_t pos_ = 0;
};

}  // namespace

std::string DefaultVariant(const std::vector<AccessMatch>& access) {
  std::string out;
  for (AccessMatch a : access) {
    if (!out.empty()) out += '-';
    out += a == AccessMatch::kRead ? "R" : a == AccessMatch::kWrite ? "W" : "*";
  }
  return out;
}

std::vector<Pattern> ParsePatterns(std::string_view text, const std::string& source) {
  return Parser(Tokenizer(text, source).Run(), source).Run();
}

std::vector<Pattern> ParsePatternFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw PecanError(path + ": cannot open pattern file");
  std::ostringstream text;
  text << in.rdbuf();
  std::vector<Pattern> patterns = ParsePatterns(text.str(), path);
  if (patterns.empty()) throw PecanError(path + ":1: no pattern defined");
  return patterns;
}

}  // namespace pecan
