package analysis

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestNiceTicks(t *testing.T) {
	for _, tc := range []struct {
		lo, hi float64
		n      int
		want   string // the tick labels
	}{
		// The running-mean range the issue saw (0.0367 to 0.163): the raw
		// quarter steps were 0.0367, 0.0683, ...; a step of (0.163−0.0367)/4 ≈
		// 0.0316 is 3.16·10⁻², which rounds to 5·10⁻² (3 ≤ 3.16 < 7), and the
		// axis widens to the multiples of 0.05 around the data: 0 and 0.2.
		{0.0367, 0.163, 5, "0.00 0.05 0.10 0.15 0.20"},
		{0, 1, 6, "0.0 0.2 0.4 0.6 0.8 1.0"},
		// U's fixed range: a step of 1.1/5 = 0.22 rounds to 0.2.
		{-0.5, 0.6, 6, "-0.6 -0.4 -0.2 0.0 0.2 0.4 0.6"},
		{12, 480, 5, "0 100 200 300 400 500"},
		// A flat series gets a unit range around it.
		{3, 3, 3, "2.5 3.0 3.5"},
	} {
		ticks := NiceTicks(tc.lo, tc.hi, tc.n)
		var got []string
		for _, v := range ticks.Values() {
			got = append(got, ticks.Label(v))
		}
		require.Equal(t, tc.want, strings.Join(got, " "), "%v..%v", tc.lo, tc.hi)
		require.LessOrEqual(t, ticks.Lo, tc.lo)
		require.GreaterOrEqual(t, ticks.Hi, tc.hi)
	}
	// Episodes 1..40: whole steps of 5; 1..3: steps of 1, never halves.
	x := IntTicks(1, 40, 8)
	require.Equal(t, 5.0, x.Step)
	require.Equal(t, 1.0, IntTicks(1, 3, 8).Step)
}

func TestPValue(t *testing.T) {
	for p, want := range map[float64]string{0: "< 0.001", 0.0004: "< 0.001", 0.001: "0.001", 0.0123: "0.012", 1: "1.000"} {
		require.Equal(t, want, PValue(p), "%v", p)
	}
	require.Equal(t, "< 0.001", PEquals(0))
	require.Equal(t, "= 0.250", PEquals(0.25))
}

func TestSequentialScale(t *testing.T) {
	// Viridis runs from dark purple (0) to yellow (1), through its stops.
	require.Equal(t, "rgb(68,1,84)", sequential(0))
	require.Equal(t, "rgb(33,145,140)", sequential(0.5))
	require.Equal(t, "rgb(253,231,37)", sequential(1))
	require.Equal(t, sequential(1), sequential(1.7), "clamped")
	require.Equal(t, "#fff", inkOn(0.2))
	require.Equal(t, "#000", inkOn(0.9))
}
