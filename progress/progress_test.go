package progress

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestLines: off a terminal, a row prints when first seen, when its status
// changes and at each tenth of its episodes, with S and an ETA at the rate
// since it was first seen running: 10 episodes in 20 s leave 90 in 180 s.
func TestLines(t *testing.T) {
	var out bytes.Buffer
	p := New(context.Background(), &out)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p.now = func() time.Time { return now }
	p.Update(Row{Name: "H0", Status: "pending"})
	p.Update(Row{Name: "E1", Status: "running", Total: 100})
	now = now.Add(10 * time.Second)
	p.Update(Row{Name: "E1", Status: "running", Done: 5, Total: 100, Means: 0.5, N: 5}) // within the first tenth: quiet
	now = now.Add(10 * time.Second)
	p.Update(Row{Name: "E1", Status: "running", Done: 10, Total: 100, Means: 0.41234, N: 10})
	p.Update(Row{Name: "E1", Status: "completed", Done: 100, Total: 100, Means: 0.6, N: 100})
	p.Close()
	require.Equal(t, ""+
		"H0     pending         0/?  S -      ETA -\n"+
		"E1     running       0/100  S -      ETA -\n"+
		"E1     running      10/100  S 0.412  ETA 3m0s\n"+
		"E1     completed   100/100  S 0.600  ETA -\n", out.String())
}

// TestClosedStatus: a bar ends at a status that closes its workflow, never
// at one it may leave again.
func TestClosedStatus(t *testing.T) {
	for st, closed := range map[string]bool{"completed": true, "stopped": true, "failed": true, "terminated": true, "canceled": true,
		"timed_out": true, "running": false, "paused": false, "waiting": false, "pending": false, "stopping": false} {
		require.Equal(t, closed, closedStatus(st), st)
	}
}
