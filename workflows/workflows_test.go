package workflows_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/clinevo/clinevo/activities/acts"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/settings"
	"github.com/clinevo/clinevo/workflows"
)

// fakeStream mocks every activity: episodes end after two turns, Evolve adds
// one rule per batch, and the calls are recorded in order.
type fakeStream struct {
	mu            sync.Mutex // evaluation episodes run in parallel child workflows
	calls         []string
	records       []string
	books         map[string]int  // rules in each record's rule book, by episode
	learnTimeouts []time.Duration // the start-to-close budget each Learn got
	// choose, when set, is the doctor temperature each Learn returns (by
	// its call number, from 1); temps the one each episode was started with.
	choose func(n int) *float64
	learns int
	temps  map[string]*float64
	// caseIDs, when set, are the plan's case IDs instead of ca, cb, ...
	caseIDs []string
	// epochs is the epoch each recorded episode carried, by episode ID.
	epochs map[string]int
	// score, when set, is each episode's S by its workflow ID (else 0.5);
	// learnt are the inputs Learn was called with.
	score  func(id string) float64
	learnt []acts.EvolveInput
}

func (f *fakeStream) call(c string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, c)
}

func (f *fakeStream) register(env *testsuite.TestWorkflowEnvironment, cases int) {
	ids := make([]string, cases)
	conds := make([]string, cases)
	for i := range ids {
		ids[i] = "c" + string(rune('a'+i))
		conds[i] = "cond"
	}
	if f.caseIDs != nil {
		copy(ids, f.caseIDs)
	}
	env.RegisterWorkflow(workflows.EpisodeWorkflow)
	env.OnActivity(acts.ValidateStream.Name(), mock.Anything, mock.Anything).Return(func(_ context.Context, s contract.StreamSpec) (acts.StreamPlan, error) {
		resolved := s.WithDefaults()
		resolved.State = contract.StreamState{}
		return acts.StreamPlan{CaseIDs: ids, Conditions: conds, Spec: &resolved}, nil
	})
	env.OnActivity(acts.PrepareEvaluation.Name(), mock.Anything, mock.Anything).Return(func(_ context.Context, e contract.EvalSpec) (contract.EvalSpec, error) {
		e = e.WithDefaults()
		e.SettingsRef = "sha256:test"
		return e, nil
	})
	env.OnActivity(acts.Decide.Name(), mock.Anything, mock.Anything).Return(func(_ context.Context, in acts.TurnInput) (acts.TurnSummary, error) {
		return acts.TurnSummary{Action: "ASK"}, nil
	})
	env.OnActivity(acts.Step.Name(), mock.Anything, mock.Anything).Return(func(_ context.Context, in acts.TurnInput) (acts.TurnSummary, error) {
		return acts.TurnSummary{Action: "ASK", Status: "returned", Done: in.Turn == 1}, nil
	})
	env.OnActivity(acts.Score.Name(), mock.Anything, mock.Anything).Return(func(_ context.Context, in acts.EpisodeInput) (contract.ScoreSummary, error) {
		f.call("episode:" + in.EpisodeID)
		f.mu.Lock()
		if f.temps == nil {
			f.temps = map[string]*float64{}
		}
		f.temps[in.EpisodeID] = in.Temperature
		f.mu.Unlock()
		if f.score != nil {
			return contract.ScoreSummary{S: f.score(in.EpisodeID), T: 1}, nil
		}
		return contract.ScoreSummary{S: 0.5, T: 1}, nil
	})
	env.OnActivity(acts.Grade.Name(), mock.Anything, mock.Anything).Return(func(_ context.Context, in acts.GradeInput) (map[grader.Label]int, error) {
		f.call("grade:" + in.CaseID)
		return nil, nil
	})
	env.OnActivity(acts.Evolve.Name(), mock.Anything, mock.Anything).Return(func(_ context.Context, in acts.EvolveInput) (acts.EvolveOutput, error) {
		f.call("evolve")
		out := acts.EvolveOutput{RuleBook: append(in.RuleBook, clinic.Rule{ID: "r", Text: "ASK onset"})}
		for _, e := range in.Episodes {
			out.Lessons = append(out.Lessons, acts.EpisodeLesson{EpisodeID: e.EpisodeID})
		}
		return out, nil
	})
	env.OnActivity(acts.Learn.Name(), mock.Anything, mock.Anything).Return(func(ctx context.Context, in acts.EvolveInput) (acts.EvolveOutput, error) {
		f.call("learn")
		info := activity.GetInfo(ctx)
		f.mu.Lock()
		f.learnTimeouts = append(f.learnTimeouts, info.Deadline.Sub(info.StartedTime))
		f.mu.Unlock()
		out := acts.EvolveOutput{RuleBook: append(in.RuleBook, clinic.Rule{ID: "r", Text: "ASK onset"})}
		f.mu.Lock()
		f.learns++
		f.learnt = append(f.learnt, in)
		if f.choose != nil {
			out.Temperature = f.choose(f.learns)
		}
		f.mu.Unlock()
		for _, e := range in.Episodes {
			out.Lessons = append(out.Lessons, acts.EpisodeLesson{EpisodeID: e.EpisodeID})
			f.call("record:" + e.CaseID)
			f.mu.Lock()
			f.records = append(f.records, e.EpisodeID)
			if f.books == nil {
				f.books = map[string]int{}
			}
			f.books[e.EpisodeID] = len(out.RuleBook)
			f.mu.Unlock()
		}
		return out, nil
	})
	env.OnActivity(acts.CompleteRun.Name(), mock.Anything, mock.Anything).Return(func(_ context.Context, c acts.RunCompletion) error {
		f.call("complete:" + c.Run)
		return nil
	})
	env.OnActivity(acts.Record.Name(), mock.Anything, mock.Anything).Return(func(_ context.Context, in acts.RecordInput) error {
		f.call("record:" + in.CaseID)
		f.mu.Lock()
		f.records = append(f.records, in.EpisodeID)
		if f.books == nil {
			f.books = map[string]int{}
		}
		f.books[in.EpisodeID] = len(in.RuleBook)
		if f.epochs == nil {
			f.epochs = map[string]int{}
		}
		f.epochs[in.EpisodeID] = in.Epoch
		f.mu.Unlock()
		return nil
	})
}

func spec(limit, stage int) contract.StreamSpec {
	return contract.StreamSpec{RunID: "t", Corpus: "builtin:stream", StageSize: stage, Limit: limit}
}

// TestStreamOrderAndContinueAsNew checks the order of the steps: each episode
// scores and grades itself, then the stream learns from it and records it in
// one step (Learn). Streams started before that (no version marker) grade,
// evolve and record in three activities.
func TestStreamOrderAndContinueAsNew(t *testing.T) {
	for _, tc := range []struct {
		name    string
		version workflow.Version
		want    []string
	}{
		{"assessed in the task", 1, []string{
			"episode:t/p1/s01/e0001-ca", "grade:ca", "learn", "record:ca",
			"episode:t/p1/s01/e0002-cb", "grade:cb", "learn", "record:cb"}},
		{"before: one activity per step", workflow.DefaultVersion, []string{
			"episode:t/p1/s01/e0001-ca", "grade:ca", "evolve", "record:ca",
			"episode:t/p1/s01/e0002-cb", "grade:cb", "evolve", "record:cb"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s testsuite.WorkflowTestSuite
			env := newEnv(&s)
			f := &fakeStream{}
			f.register(env, 4)
			// The change ID is spelled out: renaming it would break running histories.
			env.OnGetVersion("assess-in-task", workflow.DefaultVersion, 1).Return(tc.version)
			env.ExecuteWorkflow(workflows.StreamWorkflow, spec(0, 2))
			require.True(t, env.IsWorkflowCompleted())
			err := env.GetWorkflowError()
			require.Error(t, err)
			require.True(t, workflow.IsContinueAsNewError(err), "a stage boundary continues as new: %v", err)
			require.Equal(t, tc.want, f.calls)
		})
	}
}

func TestStreamCarriesCursorAndRuleBook(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := newEnv(&s)
	f := &fakeStream{}
	f.register(env, 4)
	sp := spec(0, 2).WithDefaults()
	sp.State.Cursor = 2
	sp.State.RuleBook = []clinic.Rule{{ID: "r0", Text: "ASK onset"}}
	sp.Settings.Evolver.UpdateInterval = 2 // evolve once per two episodes
	env.ExecuteWorkflow(workflows.StreamWorkflow, sp)
	require.NoError(t, env.GetWorkflowError())
	var res contract.StreamResult
	require.NoError(t, env.GetWorkflowResult(&res))
	require.Equal(t, 4, res.Episodes)
	require.Equal(t, []string{
		"episode:t/p1/s02/e0003-cc", "grade:cc", "episode:t/p1/s02/e0004-cd", "grade:cd",
		"learn", "record:cc", "record:cd", "complete:t",
	}, f.calls)
	v, err := env.QueryWorkflow(contract.QueryRules)
	require.NoError(t, err)
	var rules []string
	require.NoError(t, v.Get(&rules))
	require.Len(t, rules, 2, "the carried rule and the one Evolve added")
}

// The doctor temperature a learning step chose (EvoTest) reaches every
// episode after it until the next choice; none chosen keeps the one before,
// and before any the episodes carry none (the settings').
func TestStreamPassesTheChosenTemperature(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := newEnv(&s)
	chosen := map[int]float64{1: 0.4, 3: 0.6} // the second Learn chooses none
	f := &fakeStream{choose: func(n int) *float64 {
		if v, ok := chosen[n]; ok {
			return &v
		}
		return nil
	}}
	f.register(env, 4)
	env.ExecuteWorkflow(workflows.StreamWorkflow, spec(0, 4))
	require.NoError(t, env.GetWorkflowError())
	var got []any
	for _, id := range []string{"t/p1/s01/e0001-ca", "t/p1/s01/e0002-cb", "t/p1/s01/e0003-cc", "t/p1/s01/e0004-cd"} {
		require.Contains(t, f.temps, id)
		if tp := f.temps[id]; tp != nil {
			got = append(got, *tp)
		} else {
			got = append(got, nil)
		}
	}
	require.Equal(t, []any{nil, 0.4, 0.4, 0.6}, got)
}

// A batch of n episodes gets n times the per-episode learning budget, the
// longer of 60 s and the spec's activity timeout, so a model evolver over a
// long update interval is not cut off.
func TestLearnTimeoutGrowsWithTheBatch(t *testing.T) {
	for _, tc := range []struct {
		interval, timeout int
		want              time.Duration
	}{
		{1, 30, 60 * time.Second},
		{4, 30, 240 * time.Second},
		{4, 120, 480 * time.Second},
	} {
		var s testsuite.WorkflowTestSuite
		env := newEnv(&s)
		f := &fakeStream{}
		f.register(env, 4)
		sp := spec(4, 4).WithDefaults()
		sp.Settings.Evolver.UpdateInterval = tc.interval
		sp.ActivityTimeoutSeconds = tc.timeout
		env.ExecuteWorkflow(workflows.StreamWorkflow, sp)
		require.NoError(t, env.GetWorkflowError())
		require.NotEmpty(t, f.learnTimeouts)
		for _, d := range f.learnTimeouts {
			// The deadline is taken from the clock a moment after the start.
			require.InDelta(t, tc.want.Seconds(), d.Seconds(), 1, "interval %d, activity timeout %d", tc.interval, tc.timeout)
		}
	}
}

func TestStreamPauseResumeStop(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := newEnv(&s)
	f := &fakeStream{}
	f.register(env, 6)
	// Paused once the first episode has finished, not at a moment of the
	// clock: a loaded machine could otherwise play every episode first.
	var pauseSent bool
	env.SetOnChildWorkflowCompletedListener(func(*workflow.Info, converter.EncodedValue, error) {
		if !pauseSent {
			pauseSent = true
			env.SignalWorkflow(contract.SignalPause, nil)
		}
	})
	env.RegisterDelayedCallback(func() {
		v, err := env.QueryWorkflow(contract.QueryProgress)
		require.NoError(t, err)
		var p contract.Progress
		require.NoError(t, v.Get(&p))
		require.True(t, p.Paused)
		paused := p.Cursor
		require.Less(t, paused, 6)
		// While paused, nothing moves.
		env.RegisterDelayedCallback(func() {
			v, _ := env.QueryWorkflow(contract.QueryProgress)
			var q contract.Progress
			require.NoError(t, v.Get(&q))
			require.Equal(t, paused, q.Cursor)
			env.SignalWorkflow(contract.SignalResume, nil)
			env.SignalWorkflow(contract.SignalStop, nil)
		}, time.Hour)
	}, time.Minute)
	env.ExecuteWorkflow(workflows.StreamWorkflow, spec(0, 100))
	require.NoError(t, env.GetWorkflowError())
	var res contract.StreamResult
	require.NoError(t, env.GetWorkflowResult(&res))
	require.True(t, res.Stopped)
	require.Less(t, res.Episodes, 6)
	require.Len(t, f.records, res.Episodes, "every played episode is recorded before stopping")
}

func TestStreamContinuesAsNewWhenSuggested(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := newEnv(&s)
	f := &fakeStream{}
	f.register(env, 6)
	env.SetContinueAsNewSuggested(true)
	env.ExecuteWorkflow(workflows.StreamWorkflow, spec(0, 100))
	require.True(t, workflow.IsContinueAsNewError(env.GetWorkflowError()))
	require.Len(t, f.records, 1, "continues as new after the first flushed episode")
}

// TestEpisodeWorkflowTurnLoop plays an episode of two turns: a stream episode
// grades itself, a frozen one records itself, and neither does the other.
func TestEpisodeWorkflowTurnLoop(t *testing.T) {
	for _, tc := range []struct {
		name          string
		grade, frozen bool
		want          []string
	}{
		{"stream episode", true, false, []string{"episode:t/p1/s01/e0001-ca", "grade:ca"}},
		{"frozen episode", false, true, []string{"episode:t/p1/s01/e0001-ca", "record:ca"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s testsuite.WorkflowTestSuite
			env := newEnv(&s)
			f := &fakeStream{}
			f.register(env, 1)
			env.ExecuteWorkflow(workflows.EpisodeWorkflow, acts.EpisodeInput{Run: "t", EpisodeID: "t/p1/s01/e0001-ca", CaseID: "ca",
				Grade: tc.grade, Frozen: tc.frozen, ActivityTimeoutSeconds: 5})
			require.NoError(t, env.GetWorkflowError())
			var s2 contract.ScoreSummary
			require.NoError(t, env.GetWorkflowResult(&s2))
			require.Equal(t, 0.5, s2.S)
			env.AssertNumberOfCalls(t, "Decide", 2)
			env.AssertNumberOfCalls(t, "Step", 2)
			require.Equal(t, tc.want, f.calls)
		})
	}
}

func TestStageEvaluationAndRetentionReplay(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := newEnv(&s)
	f := &fakeStream{}
	f.register(env, 4)
	env.RegisterWorkflow(workflows.EvaluationWorkflow)
	sp := spec(0, 2).WithDefaults()
	sp.StageEval, sp.Retention = true, "matrix"
	sp.State.Cursor = 2 // stage 1 is done: it ended at episode 2 with one rule
	sp.State.StageEnds = []int{2}
	sp.State.RuleSnapshots = [][]clinic.Rule{{{ID: "r0", Text: "ASK onset"}}}
	env.ExecuteWorkflow(workflows.StreamWorkflow, sp)
	require.NoError(t, env.GetWorkflowError())
	var res contract.StreamResult
	require.NoError(t, env.GetWorkflowResult(&res))
	require.Equal(t, []int{2, 4}, res.StageEnds)
	require.Len(t, res.Evaluations, 1)
	require.Equal(t, "A[2][1]", res.Evaluations[0].Label)
	require.Equal(t, 4, res.Evaluations[0].AsOf, "the replay of stage 1 reads memory as of the end of stage 2 (episode 4)")
	c := f.calls
	require.Len(t, c, 19)
	require.Equal(t, []string{
		"episode:t/p1/s02/e0003-cc", "grade:cc", "learn", "record:cc",
		"episode:t/p1/s02/e0004-cd", "grade:cd", "learn", "record:cd"}, c[:8])
	// A[2][2]: stage 2 re-played in parallel with memory frozen at its end, recorded, no write-back.
	require.ElementsMatch(t, []string{"episode:t/eval-s02/p1/s02/e0003-cc", "record:cc", "episode:t/eval-s02/p1/s02/e0004-cd", "record:cd"}, c[8:12])
	require.Equal(t, "complete:t/eval-s02", c[12])
	// A[2][1]: stage 1 re-played with the memory as of the end of stage 2.
	require.ElementsMatch(t, []string{"episode:t/replay-k02-s01/p1/s01/e0001-ca", "record:ca", "episode:t/replay-k02-s01/p1/s01/e0002-cb", "record:cb"}, c[13:17])
	require.Equal(t, []string{"complete:t/replay-k02-s01", "complete:t"}, c[17:])
}

// TestStreamEndsAnUnclosedStage starts a stream as a restart does after a
// failure between the last episode of stage 1 and the end of its evaluation:
// the cursor at the stage end, the stage not yet in StageEnds. The stream ends
// stage 1 first (its evaluation, with the recorded rule book), plays none of
// its episodes again, and goes on with stage 2; every record carries the rule
// book after its Evolve.
func TestStreamEndsAnUnclosedStage(t *testing.T) {
	for _, eval := range []bool{true, false} {
		t.Run(map[bool]string{true: "with stage evaluations", false: "without"}[eval], func(t *testing.T) {
			var s testsuite.WorkflowTestSuite
			env := newEnv(&s)
			f := &fakeStream{}
			f.register(env, 4)
			env.RegisterWorkflow(workflows.EvaluationWorkflow)
			sp := spec(0, 2).WithDefaults()
			sp.StageEval = eval
			sp.State = contract.StreamState{Cursor: 2, RuleBook: []clinic.Rule{{ID: "r0", Text: "ASK onset"}},
				Totals: contract.Totals{N: 2, S: 1}, Stage: contract.Totals{N: 2, S: 1}}
			env.ExecuteWorkflow(workflows.StreamWorkflow, sp)
			require.NoError(t, env.GetWorkflowError())
			var res contract.StreamResult
			require.NoError(t, env.GetWorkflowResult(&res))
			require.Equal(t, []int{2, 4}, res.StageEnds)
			require.Equal(t, 4, res.Episodes)
			require.Equal(t, contract.Means{N: 4, S: 0.5, T: 0.5}, res.Overall, "the carried totals (two episodes, S 1 in all) and two more at S 0.5")
			var stream []string
			for _, c := range f.calls {
				if strings.HasPrefix(c, "episode:t/p1/") {
					stream = append(stream, c)
				}
			}
			require.Equal(t, []string{"episode:t/p1/s02/e0003-cc", "episode:t/p1/s02/e0004-cd"}, stream, "stage 1 is not played again")
			if eval {
				require.ElementsMatch(t, []string{"episode:t/eval-s01/p1/s01/e0001-ca", "record:ca", "episode:t/eval-s01/p1/s01/e0002-cb", "record:cb"}, f.calls[:4])
				require.Equal(t, "complete:t/eval-s01", f.calls[4], "stage 1's evaluation comes first")
				require.Contains(t, f.calls, "complete:t/eval-s02")
			} else {
				require.Equal(t, "episode:t/p1/s02/e0003-cc", f.calls[0])
			}
			require.Equal(t, 2, f.books["t/p1/s02/e0003-cc"], "a stream record carries the rule book after its Evolve: r0 and one rule per batch")
			require.Equal(t, 3, f.books["t/p1/s02/e0004-cd"])
		})
	}
}

// TestProgressOfAFinishedStream: once the last episode is played the
// progress query names the last stage (not one past it) and its means.
func TestProgressOfAFinishedStream(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := newEnv(&s)
	f := &fakeStream{}
	f.register(env, 4)
	env.ExecuteWorkflow(workflows.StreamWorkflow, spec(4, 4))
	require.NoError(t, env.GetWorkflowError())
	v, err := env.QueryWorkflow(contract.QueryProgress)
	require.NoError(t, err)
	var p contract.Progress
	require.NoError(t, v.Get(&p))
	require.Equal(t, 4, p.Cursor)
	require.Equal(t, 1, p.Stage, "stage 1 of 1, not 2")
	require.Equal(t, 1, p.Stages)
	require.Equal(t, 4, p.ThisStage.N, "the stage's means are the last stage's")
}

// TestStreamSpecCarriesTheExperimentBudget: every stream condition of an
// experiment with a budget checks the same cap over all its runs; without
// one the spec is as before.
func TestStreamSpecCarriesTheExperimentBudget(t *testing.T) {
	e := contract.ExperimentSpec{Name: "x", Corpus: "builtin:stream", StageSize: 4, Budget: &settings.Budget{USD: 3},
		Conditions: []contract.ConditionSpec{{Name: "E1", Kind: contract.KindStream}, {Name: "H3", Kind: contract.KindHeldOut, From: "E1"}}}
	s := workflows.StreamSpecOf(e, e.Conditions[0], e.RunID("E1"), nil)
	require.Equal(t, &contract.ExperimentBudget{Experiment: "x", Runs: []string{"x-E1", "x-H3"}, Budget: settings.Budget{USD: 3}}, s.ExperimentBudget)
	e.Budget = nil
	require.Nil(t, workflows.StreamSpecOf(e, e.Conditions[0], e.RunID("E1"), nil).ExperimentBudget)
}

// TestBadCaseIDStopsTheStream (issue 37, item 1): an episode whose workflow
// ID Temporal would refuse (a case ID that is not printable ASCII) fails the
// stream at once, non-retryable, naming the episode and the case; it used
// to fail the stream's workflow task every ten seconds for ever. Histories
// from before the check start the episode unchecked.
func TestBadCaseIDStopsTheStream(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := newEnv(&s)
	f := &fakeStream{caseIDs: []string{"ca", "病例-0002", "cc"}}
	f.register(env, 3)
	env.ExecuteWorkflow(workflows.StreamWorkflow, spec(0, 10))
	require.True(t, env.IsWorkflowCompleted())
	err := env.GetWorkflowError()
	require.Error(t, err)
	require.False(t, workflow.IsContinueAsNewError(err))
	var app *temporal.ApplicationError
	require.ErrorAs(t, err, &app)
	require.True(t, app.NonRetryable())
	require.ErrorContains(t, err, `episode 2 of run t: case "病例-0002" cannot be played: workflow ID "t/p1/s01/e0002-病例-0002" holds '病' at byte 16: `+
		"Temporal carries workflow IDs as printable ASCII (fix the case's ID in the corpus)")
	require.Equal(t, []string{"episode:t/p1/s01/e0001-ca", "grade:ca", "learn", "record:ca"}, f.calls, "the first episode played, the second never started")
}
