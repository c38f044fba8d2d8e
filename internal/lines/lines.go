// Package lines reads a text file a line at a time with a bound on each
// line, for the readers of JSON Lines files users give clinevo (corpora,
// memory exports): a line past the bound is an error naming it, not a
// scanner's "token too long", and no line is held whole past the bound.
package lines

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// TooLong is a line longer than the reader's bound.
type TooLong struct {
	Line, Max int
}

func (e *TooLong) Error() string {
	return fmt.Sprintf("line %d is longer than %d bytes, the most a line may hold", e.Line, e.Max)
}

// Read calls fn with each line of r (1-based number, the line without its
// end of line) in order, and stops at fn's first error, which it returns. A
// line longer than max bytes is a *TooLong error.
func Read(r io.Reader, max int, fn func(n int, line []byte) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	for n := 1; ; n++ {
		line, err := readLine(br, max, n)
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		if len(line) > 0 || err == nil {
			if ferr := fn(n, line); ferr != nil {
				return ferr
			}
		}
		if err != nil {
			return nil
		}
	}
}

// readLine reads up to and without the next '\n' (and a '\r' before it);
// io.EOF comes with the last line when the file does not end with one.
func readLine(br *bufio.Reader, max, n int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line)+len(chunk) > max+2 { // +2: the "\r\n" that ends it
			return nil, &TooLong{Line: n, Max: max}
		}
		line = append(line, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if len(line) > 0 && line[len(line)-1] == '\n' {
			line = line[:len(line)-1]
			if len(line) > 0 && line[len(line)-1] == '\r' {
				line = line[:len(line)-1]
			}
		}
		if len(line) > max {
			return nil, &TooLong{Line: n, Max: max}
		}
		return line, err
	}
}

// BOM is the UTF-8 byte-order mark some editors write at the start of a file.
var BOM = []byte{0xEF, 0xBB, 0xBF}

// CheckUTF8 reports the first byte of b that is not UTF-8: its 0-based
// offset in b and the byte; ok is true when b is all UTF-8.
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
