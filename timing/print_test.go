package timing_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/timing"
)

// TestReportWrite: the workflow types in name order on the first line, then
// one row per distribution (Rows' order), and the undecoded markers last
// (after the count's padding of 2, its empty cells pad the p50 and p90
// columns, 10 wide each; the max column is the line's last cell, not padded).
func TestReportWrite(t *testing.T) {
	r := timing.Report{WallSeconds: 12.34,
		Runs:                 map[string]int{"StreamWorkflow": 2, "EpisodeWorkflow": 20},
		WorkflowTasks:        map[string]int{"StreamWorkflow": 27, "EpisodeWorkflow": 40},
		WorkflowTaskDispatch: timing.Dist{Count: 67, P50: 1.25, P90: 9.5, Max: 120},
		ActivityRun:          map[string]timing.Dist{"Score": {Count: 20, P50: 3, P90: 4, Max: 5}},
		UnreadMarkers:        2,
	}
	var out bytes.Buffer
	require.NoError(t, r.Write(&out, "r1"))
	require.Equal(t, ""+
		"stream r1: 12.3 s; EpisodeWorkflow: 20 runs, 40 workflow tasks; StreamWorkflow: 2 runs, 27 workflow tasks;\n"+
		"                                       count    p50 ms    p90 ms    max ms\n"+
		"workflow task dispatch                    67       1.2       9.5     120.0\n"+
		"workflow task run                          0       0.0       0.0       0.0\n"+
		"activity dispatch                          0       0.0       0.0       0.0\n"+
		"child workflow start                       0       0.0       0.0       0.0\n"+
		"activity Score                            20       3.0       4.0       5.0\n"+
		"local-activity markers not decoded         2"+strings.Repeat(" ", 2+10+10)+"\n", out.String())
}
