package jsonl

import (
	"bufio"
	"errors"
	"strings"
	"testing"
)

// FuzzReadLimit: any input is either read to its end, every line handed
// over trimmed, not blank and within the bound, or refused with an error
// naming the file; nothing panics.
func FuzzReadLimit(f *testing.F) {
	for _, s := range []string{"", "a", "a\nb", "a\r\nb\r\n", "\n\n", strings.Repeat("x", 100), "x\r", "\r\n\r\n", "\xef\xbb\xbf{}"} {
		f.Add(s, uint8(10))
	}
	f.Fuzz(func(t *testing.T, in string, maxLine uint8) {
		limit := int(maxLine) + 1
		lines := 0
		err := ReadLimit(strings.NewReader(in), "f.jsonl", limit, func(_ int, raw []byte) error {
			if len(raw) == 0 || len(raw) > limit {
				t.Fatalf("a line of %d bytes handed over with the bound %d", len(raw), limit)
			}
			lines++
			return nil
		})
		if err != nil {
			if !errors.Is(err, bufio.ErrTooLong) || !strings.HasPrefix(err.Error(), "f.jsonl:") {
				t.Fatalf("read of %q: %v", in, err)
			}
			return
		}
		if lines > strings.Count(in, "\n")+1 {
			t.Fatalf("%d lines from %q", lines, in)
		}
	})
}
