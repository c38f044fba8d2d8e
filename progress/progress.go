// Package progress shows the progress of the workflows a command waits for:
// one bar per stream or condition on a terminal, short plain lines anywhere
// else, read from Temporal through runstatus.
package progress

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"golang.org/x/term"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/clinevo/clinevo/runstatus"
)

// Poll is how often a waiting command reads its workflows' progress.
const Poll = time.Second

// Row is one condition (or the one stream) a waiting command shows.
type Row struct {
	Name   string
	Status string
	Done   int
	Total  int // 0: not known yet
	Means  float64
	N      int // episodes the mean S is over
}

// Display shows the rows of a waiting command: one bar per row on a
// terminal (mpb), else a plain line per row whenever its status changes or
// it passes another tenth of its episodes, so a log of it stays short.
type Display struct {
	mu    sync.Mutex // state and seen: the bars' decorators read them
	w     io.Writer
	bars  *mpb.Progress
	bar   map[string]*mpb.Bar
	state map[string]Row
	seen  map[string]time.Time // when a row was first seen with episodes to play
	now   func() time.Time
}

// New shows progress on w: bars when w is a terminal.
func New(ctx context.Context, w io.Writer) *Display {
	p := &Display{w: w, bar: map[string]*mpb.Bar{}, state: map[string]Row{}, seen: map[string]time.Time{}, now: time.Now}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		p.bars = bars(ctx, w)
	}
	return p
}

// bars draws one bar per row on w, redrawn in place every 200 ms (the
// tests add mpb.WithAutoRefresh to draw on a buffer).
func bars(ctx context.Context, w io.Writer, opts ...mpb.ContainerOption) *mpb.Progress {
	opts = append([]mpb.ContainerOption{mpb.WithOutput(w), mpb.WithWidth(40), mpb.WithRefreshRate(200 * time.Millisecond)}, opts...)
	return mpb.NewWithContext(ctx, opts...)
}

// row is the last state of row name and its ETA.
func (p *Display) row(name string) (Row, string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.state[name], p.eta(p.state[name])
}

// eta is the time left for r at the rate it played since it was first seen
// (p.mu held).
func (p *Display) eta(r Row) string {
	start, ok := p.seen[r.Name]
	if !ok || r.Done == 0 || r.Total == 0 || r.Done >= r.Total || runstatus.Closed(r.Status) {
		return "-"
	}
	left := time.Duration(float64(p.now().Sub(start)) / float64(r.Done) * float64(r.Total-r.Done))
	return left.Round(time.Second).String()
}

func (r Row) counts() string {
	if r.Total == 0 {
		return fmt.Sprintf("%d/?", r.Done)
	}
	return fmt.Sprintf("%d/%d", r.Done, r.Total)
}

func (r Row) s() string {
	if r.N == 0 {
		return "S -"
	}
	return fmt.Sprintf("S %.3f", r.Means)
}

// Update shows r's new state.
func (p *Display) Update(r Row) {
	p.mu.Lock()
	old, known := p.state[r.Name]
	p.state[r.Name] = r
	if _, ok := p.seen[r.Name]; !ok && r.Status != runstatus.StatusPending {
		p.seen[r.Name] = p.now()
	}
	eta := p.eta(r)
	p.mu.Unlock()
	if p.bars == nil {
		step := max(1, r.Total/10)
		if !known || old.Status != r.Status || r.Done/step != old.Done/step || (r.Total > 0 && r.Done == r.Total && old.Done != r.Done) {
			fmt.Fprintf(p.w, "%-6s %-10s %8s  %-7s  ETA %s\n", r.Name, r.Status, r.counts(), r.s(), eta)
		}
		return
	}
	b, ok := p.bar[r.Name]
	if !ok {
		b = p.addBar(r)
	}
	if r.Total > 0 {
		b.SetTotal(int64(r.Total), false)
	}
	b.SetCurrent(int64(r.Done))
	switch {
	case r.Status == runstatus.StatusCompleted:
		b.SetTotal(int64(max(r.Done, 1)), true)
	case runstatus.Closed(r.Status): // stopped or failed: the bar stays where the run stopped
		b.Abort(false)
	}
}

// addBar adds r's bar, whose decorators read the row's latest state. The bar
// starts without a total, so that mpb never ends it by itself: a bar made
// with a total of 1 (the row's total not known yet) ended at its first
// episode and was drawn at that fill ever after ("completed 12/12" over a
// bar a tenth full); a bar ends only when its row closes (Update).
func (p *Display) addBar(r Row) *mpb.Bar {
	name := r.Name
	b := p.bars.AddBar(0,
		mpb.PrependDecorators(decor.Name(name, decor.WC{W: 6, C: decor.DindentRight}),
			decor.Any(func(decor.Statistics) string { cur, _ := p.row(name); return fmt.Sprintf("%-10s", cur.Status) })),
		mpb.AppendDecorators(decor.Any(func(decor.Statistics) string {
			cur, eta := p.row(name)
			return fmt.Sprintf("%8s  %-7s  ETA %s", cur.counts(), cur.s(), eta)
		})))
	p.bar[r.Name] = b
	return b
}

// Close ends the bars (a row still open is left where it stands).
func (p *Display) Close() {
	if p.bars == nil {
		return
	}
	for _, b := range p.bar {
		if !b.Completed() {
			b.Abort(false)
		}
	}
	p.bars.Wait()
}

// Follow waits for run, polling read every Poll for the rows to show on w;
// the rows are read once more when run ends.
func Follow(ctx context.Context, w io.Writer, run client.WorkflowRun, read func(context.Context) ([]Row, error)) error {
	done := make(chan error, 1)
	go func() { done <- Await(ctx, run) }()
	p := New(ctx, w)
	defer p.Close()
	tick := time.NewTicker(Poll)
	defer tick.Stop()
	show := func() {
		rows, err := read(ctx)
		if err != nil {
			return // a poll that fails (a stream continuing as new) is retried at the next tick
		}
		for _, r := range rows {
			p.Update(r)
		}
	}
	for {
		select {
		case err := <-done:
			show()
			return err
		case <-tick.C:
			show()
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Await waits for run to close, as run.Get does, but starts the wait again
// when one long poll of the workflow's history ends by a deadline or an
// unavailable server while ctx is alive: a wait of a multi-hour run on a
// loaded machine otherwise ended with "context deadline exceeded" while the
// run went on. A failure of the workflow itself is returned as it is.
func Await(ctx context.Context, run client.WorkflowRun) error {
	for {
		err := run.Get(ctx, nil)
		if err == nil || ctx.Err() != nil || !transient(err) {
			return err
		}
	}
}

// transient says whether err ended a wait, not the workflow.
func transient(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	switch status.Code(err) {
	case codes.DeadlineExceeded, codes.Unavailable:
		return true
	}
	var unavailable *serviceerror.Unavailable
	var deadline *serviceerror.DeadlineExceeded
	return errors.As(err, &unavailable) || errors.As(err, &deadline)
}

// ExperimentRows reads an experiment's conditions as rows.
func ExperimentRows(c client.Client, name string) func(context.Context) ([]Row, error) {
	return func(ctx context.Context) ([]Row, error) {
		ex, err := runstatus.ExperimentOf(ctx, c, name)
		if err != nil {
			return nil, err
		}
		rows := make([]Row, len(ex.Conditions))
		for i, cd := range ex.Conditions {
			rows[i] = Row{Name: cd.Name, Status: cd.Status, Done: cd.Done, Total: cd.Total, Means: cd.Means.S, N: cd.Means.N}
		}
		return rows, nil
	}
}

// StreamRows reads one stream as a row.
func StreamRows(c client.Client, run string) func(context.Context) ([]Row, error) {
	return func(ctx context.Context) ([]Row, error) {
		st, err := runstatus.StreamOf(ctx, c, run)
		if err != nil {
			return nil, err
		}
		r := Row{Name: run, Status: st.Status}
		if p := st.Progress; p != nil {
			r.Done, r.Total, r.Means, r.N = p.Cursor, p.Total, p.Overall.S, p.Overall.N
		}
		return []Row{r}, nil
	}
}
