package jsonl

import (
	"fmt"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/require"
)

type item struct {
	ID string `json:"id"`
}

// collect reads a file of items with read and a line limit of maxLine.
func collect(text string, maxLine int) (map[int]string, error) {
	got := map[int]string{}
	err := ReadLimit(strings.NewReader(text), "items.jsonl", maxLine, func(line int, raw []byte) error {
		var it item
		if err := Strict(raw, &it); err != nil {
			return fmt.Errorf("not an item: %w", err)
		}
		got[line] = it.ID
		return nil
	})
	return got, err
}

func TestRead(t *testing.T) {
	long := `{"id":"` + strings.Repeat("x", 2<<20) + `"}` // 2 MiB: past bufio.Scanner's default of 64 KiB
	for _, c := range []struct {
		name    string
		text    string
		maxLine int
		want    map[int]string
		err     string
	}{
		{"blank lines are skipped, numbers kept", "\n{\"id\":\"a\"}\n  \n\t{\"id\":\"b\"} \n", MaxLine, map[int]string{2: "a", 4: "b"}, ""},
		{"no final newline", `{"id":"a"}`, MaxLine, map[int]string{1: "a"}, ""},
		{"a long line", long + "\n" + `{"id":"b"}`, MaxLine, map[int]string{1: strings.Repeat("x", 2<<20), 2: "b"}, ""},
		{"a bad line names the file and the line", "{\"id\":\"a\"}\n\n{\"id\":1}\n", MaxLine, nil,
			"items.jsonl:3: not an item: json: cannot unmarshal number into Go struct field item.id of type string"},
		{"an unknown field", `{"id":"a","kind":"x"}`, MaxLine, nil, `items.jsonl:1: not an item: json: unknown field "kind"`},
		{"a line past the limit", "{\"id\":\"a\"}\n{\"id\":\"" + strings.Repeat("y", 100) + "\"}\n", 64, nil,
			"items.jsonl:2: the line is longer than 64 bytes, the most a line may hold"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := collect(c.text, c.maxLine)
			if c.err != "" {
				require.ErrorContains(t, err, c.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, c.want, got)
		})
	}
}

// TestReadFailure: a read that fails names the line it was reading.
func TestReadFailure(t *testing.T) {
	broken := iotest.TimeoutReader(strings.NewReader("{\"id\":\"a\"}\n{\"id\":\"b\"}\n"))
	err := Read(broken, "items.jsonl", func(int, []byte) error { return nil })
	require.ErrorIs(t, err, iotest.ErrTimeout)
	require.EqualError(t, err, "items.jsonl:3: read: timeout", "two lines were read; the third was not")
}
