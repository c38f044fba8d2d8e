package grader_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/grader"
)

func TestRound4(t *testing.T) {
	for _, c := range []struct {
		in, want float64
	}{
		{2.0 / 3, 0.6667}, // 0.66666… rounds up at the fourth decimal
		{1.0 / 3, 0.3333},
		{0.1 + 0.2, 0.3},    // the float noise of 0.30000000000000004 is gone
		{-0.12345, -0.1235}, // halves round away from zero (math.Round); -0.12345*1e4 is -1234.5
		{12.5, 12.5},
	} {
		require.Equal(t, c.want, grader.Round4(c.in), "Round4(%v)", c.in)
	}
}

func TestIndicator(t *testing.T) {
	require.Equal(t, 1.0, grader.Indicator(true))
	require.Equal(t, 0.0, grader.Indicator(false))
}
