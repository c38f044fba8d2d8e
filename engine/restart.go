package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/clinevo/clinevo/activities"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/corpus"
	"github.com/clinevo/clinevo/results"
)

// ErrRunning is returned (wrapped) when asked to restart a workflow that is
// still running: it needs no restart, since it continues by itself as soon as
// a worker polls its task queue again.
var ErrRunning = errors.New("still running")

// ErrFinished is returned (wrapped) when asked to restart a run that finished.
var ErrFinished = errors.New("finished")

// ResumeState rebuilds the state a stream continues from after it stopped
// without finishing (failed, terminated, timed out), from the records of its
// episodes in case order: the cursor after the last completed batch, the rule
// book (and doctor temperature) recorded with it, the totals and this stage's totals of the episodes
// before the cursor, and the end and rule book of every stage that was closed.
//
// A batch is the episodes one Evolve learned from (update_interval episodes,
// and the rest of a stage at its end); records are written after their batch's
// Evolve, so a stream whose records stop inside a batch goes back to the batch's
// start and plays its recorded episodes again (they return their stored turns),
// learning from them as one batch as the first time. A stage is closed when
// its stage evaluation finished (evaluated reports it) or it has none; the
// stream ends an unclosed stage the cursor stands at before anything else.
// caseIDs is the stream's case order (its plan); a record that does not
// belong there is an error.
func ResumeState(spec contract.StreamSpec, caseIDs []string, recs []results.Record, evaluated func(stage int) (bool, error)) (contract.StreamState, error) {
	spec = spec.WithDefaults()
	total, size, interval := len(caseIDs), spec.StageSize, spec.Settings.Evolver.UpdateInterval
	done := 0 // episodes recorded from the first, without a gap
	for _, r := range recs {
		if r.Index != done+1 {
			break
		}
		if r.Index > total {
			return contract.StreamState{}, fmt.Errorf("resume %s: episode %d is recorded but the stream has %d cases", spec.RunID, r.Index, total)
		}
		want := contract.EpisodeWorkflowID(spec.RunID, spec.Pass, (r.Index-1)/size+1, r.Index, caseIDs[r.Index-1])
		if r.EpisodeID != want || r.Kind != string(contract.KindStream) {
			return contract.StreamState{}, fmt.Errorf("resume %s: record %s (kind %s) is not episode %d of this stream (%s): the stream's spec or corpus changed since it ran",
				spec.RunID, r.EpisodeID, r.Kind, r.Index, want)
		}
		done++
	}
	batchEnd := func(i int) bool { return spec.StageEnd(i, total) || ((i-1)%size+1)%interval == 0 }
	cursor := done
	for cursor > 0 && !batchEnd(cursor) {
		cursor--
	}
	st := contract.StreamState{Cursor: cursor}
	if cursor == 0 {
		return st, nil // from the start: the stream takes the spec's rule book
	}
	book := func(i int) ([]clinic.Rule, error) {
		if recs[i-1].RuleBook == nil {
			return nil, fmt.Errorf("resume %s: record %s holds no rule book (recorded by an older clinevo): the stream cannot continue from it",
				spec.RunID, recs[i-1].EpisodeID)
		}
		return recs[i-1].RuleBook, nil
	}
	var err error
	if st.RuleBook, err = book(cursor); err != nil {
		return contract.StreamState{}, err
	}
	// The doctor temperature a learning method chose (EvoTest) goes on:
	// the latest recorded with a batch up to the cursor.
	for _, r := range recs[:cursor] {
		if r.Temperature != nil {
			st.Temperature = r.Temperature
		}
	}
	stageStart := (cursor - 1) / size * size // the first index of the cursor's stage, 0-based
	for i, r := range recs[:cursor] {
		s := activities.Summary(r.Scores, r.Termination)
		st.Totals.Add(s)
		if i >= stageStart {
			st.Stage.Add(s)
		}
	}
	for j := 1; (j-1)*size < cursor; j++ {
		end := min(j*size, total)
		if end > cursor {
			break
		}
		if end == cursor && spec.StageEval {
			ok, err := evaluated(j)
			if err != nil {
				return contract.StreamState{}, fmt.Errorf("resume %s: stage %d evaluation: %w", spec.RunID, j, err)
			}
			if !ok {
				break // the stream ends this stage first
			}
		}
		snap, err := book(end)
		if err != nil {
			return contract.StreamState{}, err
		}
		st.StageEnds = append(st.StageEnds, spec.FirstEpisode+end)
		st.RuleSnapshots = append(st.RuleSnapshots, snap)
	}
	if len(st.StageEnds) == (cursor-1)/size+1 && cursor < total {
		st.Stage = contract.Totals{} // the cursor's stage is over: the next one starts from nothing
	}
	return st, nil
}

// RestartStream starts a stream that failed, was terminated or timed out
// again from its last completed episode: its spec as it recorded it (the runs
// table), its state rebuilt by ResumeState from its records, under its own
// workflow ID. A running stream is refused (ErrRunning), and so is a finished
// one (ErrFinished). A stream Temporal does not know (its history is gone, or
// the run moved to another cluster with its results store and memory) is
// restarted from the store alone. It returns the started workflow and the spec
// it was started with.
func RestartStream(ctx context.Context, c client.Client, store results.Store, taskQueue, run string) (client.WorkflowRun, contract.StreamSpec, error) {
	what := "stream " + run
	if err := restartable(ctx, c, contract.StreamWorkflowID(run), what); err != nil {
		return nil, contract.StreamSpec{}, err
	}
	spec, err := resumeStream(ctx, store, run)
	if err != nil {
		return nil, contract.StreamSpec{}, err
	}
	if err := awaitClosed(ctx, c, run); err != nil {
		return nil, contract.StreamSpec{}, err
	}
	wr, err := startStream(ctx, c, taskQueue, spec, enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE_FAILED_ONLY)
	if err != nil {
		return nil, contract.StreamSpec{}, fmt.Errorf("restart %s: %w", what, err)
	}
	return wr, spec, nil
}

// ResumeExperiment starts an experiment that failed, was terminated or timed
// out again: finished conditions are reused (the experiment finds their
// results), and every stream condition that had started continues from its
// last completed episode (ExperimentSpec.Resume). A running experiment is
// refused (ErrRunning), and so is a finished one (ErrFinished).
func ResumeExperiment(ctx context.Context, c client.Client, store results.Store, taskQueue string, spec contract.ExperimentSpec) (client.WorkflowRun, error) {
	what := "experiment " + spec.Name
	if err := restartable(ctx, c, contract.ExperimentWorkflowID(spec.Name), what); err != nil {
		return nil, err
	}
	if _, err := store.RunResult(ctx, spec.Name); err == nil {
		return nil, fmt.Errorf("%s has %w: its result is recorded (clinevo report %s)", what, ErrFinished, spec.Name)
	} else if !errors.Is(err, results.ErrNotFound) {
		return nil, fmt.Errorf("resume %s: %w", what, err)
	}
	// The resumed experiment is the same run: it keeps the claim it recorded
	// (a spec read from its file has none).
	runs, _, err := store.Runs(ctx)
	if err != nil {
		return nil, fmt.Errorf("resume %s: %w", what, err)
	}
	for _, r := range runs {
		if r.Run == spec.Name && r.Kind == string(contract.KindExperiment) {
			spec.Claim = r.Claim
		}
	}
	spec.Resume = nil
	for _, cond := range spec.Conditions {
		run := spec.RunID(cond.Name)
		if _, err := store.RunResult(ctx, run); err == nil {
			continue // finished: the experiment reuses its result
		} else if !errors.Is(err, results.ErrNotFound) {
			return nil, fmt.Errorf("resume %s: condition %s: %w", what, cond.Name, err)
		}
		if err := awaitClosed(ctx, c, run); err != nil {
			return nil, err
		}
		if cond.Kind != contract.KindStream {
			continue // an evaluation plays its cases again
		}
		s, err := resumeStream(ctx, store, run)
		if errors.Is(err, results.ErrNotFound) {
			continue // never started
		}
		if err != nil {
			return nil, fmt.Errorf("resume %s: condition %s: %w", what, cond.Name, err)
		}
		if spec.Resume == nil {
			spec.Resume = map[string]contract.StreamSpec{}
		}
		spec.Resume[cond.Name] = s
	}
	wr, err := startExperiment(ctx, c, taskQueue, spec, enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE_FAILED_ONLY)
	if err != nil {
		return nil, fmt.Errorf("resume %s: %w", what, err)
	}
	return wr, nil
}

// resumeStream returns the recorded spec of an unfinished stream with the state
// it continues from; a stream the store does not know is ErrNotFound.
func resumeStream(ctx context.Context, store results.Store, run string) (contract.StreamSpec, error) {
	if _, err := store.RunResult(ctx, run); err == nil {
		return contract.StreamSpec{}, fmt.Errorf("stream %s has %w: its result is recorded (continue its memory with a carry run instead)", run, ErrFinished)
	} else if !errors.Is(err, results.ErrNotFound) {
		return contract.StreamSpec{}, fmt.Errorf("stream %s: %w", run, err)
	}
	spec, err := RecordedStream(ctx, store, run)
	if err != nil {
		return contract.StreamSpec{}, err
	}
	recs, err := store.Records(ctx, run)
	if err != nil {
		return contract.StreamSpec{}, fmt.Errorf("stream %s: %w", run, err)
	}
	set, err := Benchmarks()
	if err != nil {
		return contract.StreamSpec{}, err
	}
	plan, err := activities.NewCorpora(corpus.NewLibrary(set)).Plan(spec.Corpus, spec.CaseIDs, spec.Limit)
	if err != nil {
		return contract.StreamSpec{}, fmt.Errorf("stream %s: %w", run, err)
	}
	ids := plan.CaseIDs
	evaluated := func(j int) (bool, error) {
		_, err := store.RunResult(ctx, contract.StageEvalRunID(run, j))
		if errors.Is(err, results.ErrNotFound) {
			return false, nil
		}
		return err == nil, err
	}
	st, err := ResumeState(spec, ids, recs, evaluated)
	if err != nil {
		return contract.StreamSpec{}, err
	}
	spec.State = st
	return spec, nil
}

// RecordedStream returns the spec a stream recorded when it started (the
// first description wins, so it is the spec of its first run); a stream the
// store does not know is an error wrapping results.ErrNotFound.
func RecordedStream(ctx context.Context, store results.RunLog, run string) (contract.StreamSpec, error) {
	runs, _, err := store.Runs(ctx)
	if err != nil {
		return contract.StreamSpec{}, fmt.Errorf("stream %s: %w", run, err)
	}
	for _, r := range runs {
		if r.Run != run || r.Kind != string(contract.KindStream) {
			continue
		}
		var s contract.StreamSpec
		if err := json.Unmarshal(r.Spec, &s); err != nil {
			return contract.StreamSpec{}, fmt.Errorf("stream %s: recorded spec: %w", run, err)
		}
		s.State = contract.StreamState{} // the state is rebuilt from the records
		return s, nil
	}
	return contract.StreamSpec{}, fmt.Errorf("stream %s is not in the results store: %w", run, results.ErrNotFound)
}

// restartable refuses a workflow that is running or completed; one that
// failed, was terminated, timed out or was canceled, or that Temporal does not
// know, may start again.
func restartable(ctx context.Context, c client.Client, id, what string) error {
	desc, err := c.DescribeWorkflowExecution(ctx, id, "")
	var nf *serviceerror.NotFound
	if errors.As(err, &nf) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("restart %s: %w", what, err)
	}
	switch st := desc.GetWorkflowExecutionInfo().GetStatus(); st {
	case enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, enumspb.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW:
		return fmt.Errorf("%s is %w: it continues by itself when a worker polls its task queue again (a crashed worker needs only a restart; "+
			"pause, resume or stop it with signals)", what, ErrRunning)
	case enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED:
		kind, run, _ := strings.Cut(what, " ")
		return fmt.Errorf("%s has %w (workflow %s completed): %s", what, ErrFinished, id, activities.FinishedFix(kind, run))
	}
	return nil
}

// closeWait bounds how long a restart waits for the workflows of a closed run
// to close: Temporal terminates a closed workflow's children shortly after it,
// and a child still running would refuse the restarted run's start of it.
const closeWait = time.Minute

// awaitClosed waits until no workflow of run (its episodes, evaluations and
// their episodes: IDs "<run>/...") is running.
func awaitClosed(ctx context.Context, c client.Client, run string) error {
	q := fmt.Sprintf(`WorkflowId STARTS_WITH %q AND ExecutionStatus = "Running"`, run+"/")
	deadline := time.Now().Add(closeWait)
	for {
		resp, err := c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Query: q, PageSize: 10})
		if err != nil {
			return fmt.Errorf("restart %s: list its running workflows: %w", run, err)
		}
		if len(resp.Executions) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("restart %s: workflow %s is still running %v after the run stopped; terminate it or try again",
				run, resp.Executions[0].GetExecution().GetWorkflowId(), closeWait)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("restart %s: %w", run, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}
