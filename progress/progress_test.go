package progress

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/vbauerster/mpb/v8"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
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

// waits is a workflow run whose Get returns its errors one by one, then nil.
type waits struct {
	client.WorkflowRun
	errs  []error
	calls int
}

func (w *waits) Get(context.Context, any) error {
	w.calls++
	if len(w.errs) == 0 {
		return nil
	}
	err := w.errs[0]
	w.errs = w.errs[1:]
	return err
}

// TestAwaitOutlastsAnEndedPoll: a long poll that ends by a deadline or an
// unavailable server starts the wait again (a --wait on a loaded machine
// ended with "context deadline exceeded" while its run went on); the
// workflow's own failure, or the caller's ended context, is returned.
func TestAwaitOutlastsAnEndedPoll(t *testing.T) {
	ctx := context.Background()
	w := &waits{errs: []error{context.DeadlineExceeded, status.Error(codes.DeadlineExceeded, "poll"),
		serviceerror.NewUnavailable("restarting"), fmt.Errorf("get history: %w", context.DeadlineExceeded)}}
	require.NoError(t, Await(ctx, w))
	require.Equal(t, 5, w.calls)

	failed := errors.New("workflow execution error: activity failed")
	w = &waits{errs: []error{failed}}
	require.ErrorIs(t, Await(ctx, w), failed)
	require.Equal(t, 1, w.calls)

	done, cancel := context.WithCancel(ctx)
	cancel()
	w = &waits{errs: []error{context.Canceled}}
	require.ErrorIs(t, Await(done, w), context.Canceled)
	w = &waits{errs: []error{context.DeadlineExceeded}}
	require.ErrorIs(t, Await(done, w), context.DeadlineExceeded, "the caller's own ended context is not waited out")
	require.Equal(t, 1, w.calls)
}

// lastLines are the last n lines of out: off a terminal mpb writes each
// frame after the one before, so they are its last frame of n rows.
func lastLines(out string, n int) string {
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// TestBarsEndFull: a row whose total is not known when its bar is made, and
// one that plays a second pass (its count starting again), end as full bars
// at "completed"; a stopped row's bar stays where it stopped. Before, a bar
// made with a total of 1 ended at its first episode and was drawn a tenth
// full under "completed 12/12" to the end.
func TestBarsEndFull(t *testing.T) {
	var out bytes.Buffer // read after Close, which waits for mpb's writes
	p := &Display{w: &out, bar: map[string]*mpb.Bar{}, state: map[string]Row{}, seen: map[string]time.Time{}, now: time.Now}
	p.bars = bars(context.Background(), &out, mpb.WithAutoRefresh(), mpb.WithWidth(120)) // off a terminal the width is the line's
	p.Update(Row{Name: "E2", Status: "pending"})
	p.Update(Row{Name: "E2", Status: "running", Done: 1})
	p.Update(Row{Name: "E2", Status: "running", Done: 12, Total: 12})
	p.Update(Row{Name: "E2", Status: "running", Done: 3, Total: 12}) // the second pass
	p.Update(Row{Name: "E2", Status: "completed", Done: 12, Total: 12, Means: 0.723, N: 12})
	p.Update(Row{Name: "E3", Status: "running", Done: 5, Total: 10})
	p.Update(Row{Name: "E3", Status: "stopped", Done: 5, Total: 10})
	p.Close()
	frame := lastLines(out.String(), 2)
	require.Regexp(t, `E2 +completed +\[=+\] +12/12  S 0\.723`, frame)
	require.Regexp(t, `E3 +stopped +\[=+>?-+\] +5/10  S -      ETA -`, frame)
}
