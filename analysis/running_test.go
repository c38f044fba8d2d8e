package analysis

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRunningChartRange: the running mean of S is drawn on S's range, 0 to
// 1, however narrow the means are (0.40 to 0.45 would otherwise get an axis
// from 0.40 to 0.45 that makes a flat line look like a climb); the cost's
// axis starts at 0 and reaches its largest mean.
func TestRunningChartRange(t *testing.T) {
	rep := Report{Conditions: []ConditionReport{{Name: "E1", Running: []RunningPoint{
		{T: 1, S: 0.40, Cost: 120}, {T: 2, S: 0.45, Cost: 150}, {T: 3, S: 0.42, Cost: 180},
	}}}}
	ticks := regexp.MustCompile(`class="ytick"[^>]*>([^<]*)<`)
	labels := func(svg string) []string {
		var out []string
		for _, m := range ticks.FindAllStringSubmatch(svg, -1) {
			out = append(out, m[1])
		}
		return out
	}
	for _, tc := range []struct {
		name        string
		lo, hi      float64
		y           func(RunningPoint) float64
		first, last string
	}{
		{"S", 0, 1, func(p RunningPoint) float64 { return p.S }, "0.0", "1.0"},
		// NiceTicks(0, 180, 5): step niceNumber(45) = 50, so 0 to 200.
		{"cost", 0, 0, func(p RunningPoint) float64 { return p.Cost }, "0", "200"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := labels(string(runningChart(rep, tc.name, tc.y, tc.lo, tc.hi)))
			require.NotEmpty(t, got)
			require.Equal(t, tc.first, got[0])
			require.Equal(t, tc.last, got[len(got)-1])
		})
	}
}

// TestUSDWording: the report's table headers say "cost USD" for the
// simulated encounter's cost and "model USD" for the models' spend, never a
// bare USD.
func TestUSDWording(t *testing.T) {
	var src string
	for _, tp := range page.Templates() {
		if tp.Tree != nil {
			src += tp.Tree.Root.String()
		}
	}
	cells := regexp.MustCompile(`<th[^>]*>([^<]*USD[^<]*)</th>`).FindAllStringSubmatch(src, -1)
	require.NotEmpty(t, cells)
	for _, m := range cells {
		require.Regexp(t, `cost USD|model USD`, m[1])
	}
	require.Contains(t, src, "<th>evolver model USD</th>", "the evolver's spend is the models'")
}
