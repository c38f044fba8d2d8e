package lines_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/clinevo/clinevo/internal/lines"
)

// FuzzRead splits any input into lines no longer than the bound: joined
// back they are the input (without its line ends), or the read stops at a
// line past the bound.
func FuzzRead(f *testing.F) {
	for _, s := range []string{"", "a", "a\nb", "a\r\nb\r\n", "\n\n", strings.Repeat("x", 100), "x\r", "\r\n\r\n"} {
		f.Add(s, uint8(10))
	}
	f.Fuzz(func(t *testing.T, in string, max uint8) {
		var got [][]byte
		err := lines.Read(strings.NewReader(in), int(max), func(_ int, l []byte) error {
			if len(l) > int(max) {
				t.Fatalf("a line of %d bytes past the bound %d", len(l), max)
			}
			got = append(got, bytes.Clone(l))
			return nil
		})
		var long *lines.TooLong
		if errors.As(err, &long) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		want := strings.ReplaceAll(strings.TrimSuffix(in, "\n"), "\r\n", "\n")
		if in != "" && string(bytes.Join(got, []byte("\n"))) != want && !strings.Contains(in, "\r") {
			t.Fatalf("lines %q of %q", got, in)
		}
	})
}
