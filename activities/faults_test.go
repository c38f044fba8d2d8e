package activities_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/clinevo/clinevo/activities"
	"github.com/clinevo/clinevo/actor"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/corpus"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/results/sqlite"
	"github.com/clinevo/clinevo/runner"
	"github.com/clinevo/clinevo/settings"
)

// faulty is a results store whose reads and writes can be made to fail or to
// return what another worker stored first.
type faulty struct {
	results.Store
	decisionErr error         // Decision fails with it
	gradeErr    error         // Grade fails with it
	firstDec    []byte        // PutDecision returns it, as if another worker stored it first
	firstEvent  *clinic.Event // PutEvent returns it
}

func (f *faulty) Decision(ctx context.Context, id string, turn int) (json.RawMessage, error) {
	if f.decisionErr != nil {
		return nil, f.decisionErr
	}
	return f.Store.Decision(ctx, id, turn)
}

func (f *faulty) Grade(ctx context.Context, id string, v any) error {
	if f.gradeErr != nil {
		return f.gradeErr
	}
	return f.Store.Grade(ctx, id, v)
}

func (f *faulty) PutDecision(ctx context.Context, id string, turn int, d json.RawMessage) (json.RawMessage, error) {
	if f.firstDec != nil {
		if _, err := f.Store.PutDecision(ctx, id, turn, f.firstDec); err != nil {
			return nil, err
		}
	}
	return f.Store.PutDecision(ctx, id, turn, d)
}

func (f *faulty) PutEvent(ctx context.Context, id string, ev clinic.Event) (clinic.Event, error) {
	if f.firstEvent != nil {
		if _, err := f.Store.PutEvent(ctx, id, *f.firstEvent); err != nil {
			return clinic.Event{}, err
		}
	}
	return f.Store.PutEvent(ctx, id, ev)
}

// countingDoctor counts its decisions.
type countingDoctor struct{ n int }

func (d *countingDoctor) Decide(ctx context.Context, v clinic.DoctorView) (actor.Decision, error) {
	d.n++
	return actor.Builtin{}.Decide(ctx, v)
}

func setup(t *testing.T) (*activities.Activities, *faulty, *countingDoctor, activities.TurnInput) {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "results.db"))
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	f := &faulty{Store: st}
	doc := &countingDoctor{}
	a := &activities.Activities{Benchmarks: defaultSet(t), Corpora: activities.NewCorpora(corpus.NewLibrary(defaultSet(t))), Results: f, Roles: func(settings.Settings) (runner.Roles, error) {
		r := runner.BuiltinRoles()
		r.Doctor = doc
		return r, nil
	}}
	in := activities.TurnInput{EpisodeInput: activities.EpisodeInput{Run: "r", EpisodeID: "r/p1/s01/e0001-stream-0001", Kind: contract.KindStream,
		Corpus: "builtin:stream", CaseID: "stream-0001", Index: 1, Number: 1, Pass: 1, Stage: 1, Settings: settings.Default()}}
	return a, f, doc, in
}

func nonRetryable(err error) bool {
	var ae *temporal.ApplicationError
	return errors.As(err, &ae) && ae.NonRetryable()
}

// TestStoreFaultsAreNotSwallowed injects store faults into Decide, Step and
// Record: a failed read is a retryable error, never "not stored yet" and never
// bad input, and a missing grade is told apart from a failed read.
func TestStoreFaultsAreNotSwallowed(t *testing.T) {
	ctx := context.Background()
	disk := errors.New("disk I/O error")

	t.Run("Decide does not take a failed read for a missing decision", func(t *testing.T) {
		a, f, doc, in := setup(t)
		f.decisionErr = disk
		_, err := a.Decide(ctx, in)
		require.ErrorContains(t, err, disk.Error())
		require.False(t, nonRetryable(err), "a store fault is retried")
		require.Zero(t, doc.n, "the doctor is not asked again over a stored decision it cannot read")
	})
	t.Run("Step retries a failed read and refuses a missing decision", func(t *testing.T) {
		a, f, _, in := setup(t)
		f.decisionErr = disk
		_, err := a.Step(ctx, in)
		require.ErrorContains(t, err, disk.Error())
		require.False(t, nonRetryable(err))
		f.decisionErr = fmt.Errorf("wrapped: %w", results.ErrNotFound)
		_, err = a.Step(ctx, in)
		require.True(t, nonRetryable(err), "stepping before a decision is bad input: %v", err)
	})
	t.Run("Decide and Step return what was stored first", func(t *testing.T) {
		a, f, _, in := setup(t)
		f.firstDec = []byte(`{"output":{"action":"REQUEST_TEST","test_name":"physical examination"},"llm_error":false,"cards":null}`)
		sum, err := a.Decide(ctx, in)
		require.NoError(t, err)
		require.Equal(t, "REQUEST_TEST", sum.Action, "another worker's first decision wins")
		f.firstEvent = &clinic.Event{Turn: 0, Action: clinic.CallMDT, Status: clinic.StatusInvalid, Cost: 5}
		st, err := a.Step(ctx, in)
		require.NoError(t, err)
		require.Equal(t, "CALL_MDT", st.Action, "another worker's first event wins")
		require.Equal(t, "invalid", st.Status)
	})
	t.Run("Record tells a missing grade from a failed read", func(t *testing.T) {
		a, f, _, in := setup(t)
		for turn := 0; ; turn++ {
			in.Turn = turn
			_, err := a.Decide(ctx, in)
			require.NoError(t, err)
			st, err := a.Step(ctx, in)
			require.NoError(t, err)
			if st.Done {
				break
			}
		}
		_, err := a.Score(ctx, in.EpisodeInput)
		require.NoError(t, err)
		rec := activities.RecordInput{EpisodeRef: in.Ref(), Run: "r", Kind: contract.KindStream, Pass: 1}
		require.NoError(t, a.Record(ctx, rec), "an ungraded episode (a frozen evaluation) is recorded")
		f.gradeErr = disk
		require.ErrorContains(t, a.Record(ctx, rec), disk.Error())
	})
}
