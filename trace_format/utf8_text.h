// Text from files and programs is bytes; protobuf string fields, JSON and a terminal need valid
// UTF-8 without control bytes. These checks and repairs are the one place that knows how.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace pecan {

// The offset of the first byte of `text` that does not start a well-formed UTF-8 sequence
// (overlong forms, surrogates and code points above U+10FFFF included), or npos when none.
size_t FirstInvalidUtf8(std::string_view text);

// `text` with each byte of an ill-formed sequence replaced by U+FFFD; valid text is unchanged.
std::string ValidUtf8(std::string_view text);

// `text` for a one-line message: control bytes (newlines included) and bytes of ill-formed
// UTF-8 are shown as \xNN, so a message can neither break the line nor drive the terminal.
std::string PrintableText(std::string_view text);

}  // namespace pecan
