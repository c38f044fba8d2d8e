package tokens

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestEstimateRoundsUp(t *testing.T) {
	for _, c := range []struct {
		text string
		want int
	}{
		{"", 0},
		{"a", 1},       // 1 byte: one token
		{"abcd", 1},    // 4 bytes: exactly one
		{"abcde", 2},   // 5 bytes: ceil(5/4) = 2
		{"héllo!!", 2}, // 8 bytes (é is two): 8/4 = 2
	} {
		t.Run(c.text, func(t *testing.T) {
			require.Equal(t, c.want, Of(c.text))
		})
	}
}
