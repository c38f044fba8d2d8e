// Package jsonl reads JSON Lines files (one JSON value a line) as every
// reader of clinevo's files does: blank lines skipped, long lines accepted up
// to MaxLine, and every error naming the file and the line.
package jsonl

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// MaxLine is the longest line Read accepts, in bytes: 64 MiB (clinevo's
// choice: a case with its transcripts or a memory card fits many times over;
// a longer line is a file that is not JSON Lines, which should not fill the
// memory).
const MaxLine = 64 << 20

// Read calls fn with every line of r that holds more than white space, trimmed
// of it, and the line's number (from 1); raw is valid only during the call.
// The first error of fn stops it and comes back after "name:line: ". A line
// longer than MaxLine or a failed read is an error naming the file and the
// line too.
func Read(r io.Reader, name string, fn func(line int, raw []byte) error) error {
	return ReadLimit(r, name, MaxLine, fn)
}

// ReadLimit is Read with lines of at most maxLine bytes, for a file whose
// records have a smaller bound of their own (a case, a memory card): the
// reader holds no more than that of a line that is too long.
func ReadLimit(r io.Reader, name string, maxLine int, fn func(line int, raw []byte) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, min(maxLine, 64<<10)), maxLine)
	line := 0
	for sc.Scan() {
		line++
		raw := bytes.TrimSpace(sc.Bytes())
		if len(raw) == 0 {
			continue
		}
		if err := fn(line, raw); err != nil {
			return fmt.Errorf("%s:%d: %w", name, line, err)
		}
	}
	switch err := sc.Err(); {
	case errors.Is(err, bufio.ErrTooLong):
		return fmt.Errorf("%s:%d: the line is longer than %d bytes, the most a line may hold: %w", name, line+1, maxLine, err)
	case err != nil:
		return fmt.Errorf("%s:%d: read: %w", name, line+1, err)
	}
	return nil
}

// Strict decodes one line into v, refusing a field v does not have: a
// misspelt field is an error, not a value silently left out.
func Strict(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// BOM is the UTF-8 byte-order mark, which a JSON Lines file must not start
// with (encoding/json refuses it with a message that does not say why).
var BOM = []byte{0xEF, 0xBB, 0xBF}

// CheckUTF8 finds the first byte of b that does not start a valid UTF-8
// sequence: its offset and value, ok false; encoding/json would otherwise
// replace it with U+FFFD in silence.
func CheckUTF8(b []byte) (offset int, bad byte, ok bool) {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 {
			return i, b[i], false
		}
		i += size
	}
	return 0, 0, true
}
