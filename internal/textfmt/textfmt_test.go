package textfmt

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestClip(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{
		{"abc", 3, "abc"},  // as long as the column: kept whole
		{"abcd", 3, "ab…"}, // 2 bytes and the ellipsis
		{"", 5, ""},        // nothing to clip
		{"hello world", 6, "hello…"},
	} {
		t.Run(c.s, func(t *testing.T) {
			require.Equal(t, c.want, Clip(c.s, c.n))
		})
	}
}

func TestSeconds(t *testing.T) {
	for _, c := range []struct {
		s    float64
		want string
	}{
		{0, "0s"},
		{41.6, "42s"}, // rounded below a minute
		{59.4, "59s"},
		{60, "1m00s"},
		{187.9, "3m07s"}, // whole seconds, truncated: 3·60 + 7
		{3600, "1h00m"},
		{3720, "1h02m"},   // 3600 + 2·60
		{90000, "25h00m"}, // hours do not roll into days
	} {
		t.Run(c.want, func(t *testing.T) {
			require.Equal(t, c.want, Seconds(c.s))
		})
	}
}

func TestOrDash(t *testing.T) {
	require.Equal(t, "-", OrDash(""))
	require.Equal(t, "x", OrDash("x"))
	require.Equal(t, " ", OrDash(" "), "only the empty string is absent")
}

// TestJSON: two-space indents, a newline at the end, keys of a map in
// order, and HTML characters escaped as encoding/json escapes them.
func TestJSON(t *testing.T) {
	var b strings.Builder
	require.NoError(t, JSON(&b, map[string]any{"b": "<x>", "a": []int{1}}))
	require.Equal(t, "{\n  \"a\": [\n    1\n  ],\n  \"b\": \"\\u003cx\\u003e\"\n}\n", b.String())
	require.Error(t, JSON(&b, func() {}), "a value JSON cannot hold")
}
