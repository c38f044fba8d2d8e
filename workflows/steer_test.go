package workflows_test

import (
	"context"
	"fmt"
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
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/settings"
	"github.com/clinevo/clinevo/workflows"
)

// answer is what a stream answered one update.
type answer struct {
	name     string
	done     bool
	progress contract.Progress
	refusal  error
}

// steerer sends a stream updates under the test environment and keeps the
// answers.
type steerer struct {
	t       *testing.T
	env     *testsuite.TestWorkflowEnvironment
	answers []*answer
}

func (s *steerer) send(name string, args ...any) *answer {
	a := &answer{name: name}
	s.answers = append(s.answers, a)
	s.env.UpdateWorkflow(name, "", &testsuite.TestUpdateCallback{
		OnAccept: func() {},
		OnReject: func(err error) { a.done, a.refusal = true, err },
		OnComplete: func(v any, err error) {
			require.NoError(s.t, err, "update %s", name)
			a.done = true
			p, ok := v.(contract.Progress)
			require.True(s.t, ok, "update %s answered %T", name, v)
			a.progress = p
		},
	}, args...)
	return a
}

// steeredStream is a test environment of a stream of n cases (fakeStream)
// and a steerer of it.
func steeredStream(t *testing.T, n int) (*testsuite.TestWorkflowEnvironment, *steerer) {
	var s testsuite.WorkflowTestSuite
	env := newEnv(&s)
	(&fakeStream{}).register(env, n)
	return env, &steerer{t: t, env: env}
}

// accepted checks that the update was taken and answered.
func (a *answer) accepted(t *testing.T) contract.Progress {
	t.Helper()
	require.True(t, a.done, "update %s was not answered", a.name)
	require.NoError(t, a.refusal, "update %s", a.name)
	return a.progress
}

// refused checks that the update was refused with a message holding want.
func (a *answer) refused(t *testing.T, want string) {
	t.Helper()
	require.True(t, a.done, "update %s was not answered", a.name)
	require.Error(t, a.refusal, "update %s was taken", a.name)
	var app *temporal.ApplicationError
	require.ErrorAs(t, a.refusal, &app)
	require.Equal(t, contract.UpdateRefused, app.Type(), "update %s: %v", a.name, a.refusal)
	require.Contains(t, a.refusal.Error(), want, "update %s", a.name)
}

func progressOf(t *testing.T, env *testsuite.TestWorkflowEnvironment) contract.Progress {
	t.Helper()
	v, err := env.QueryWorkflow(contract.QueryProgress)
	require.NoError(t, err)
	var p contract.Progress
	require.NoError(t, v.Get(&p))
	return p
}

// afterFirstEpisode runs fn once, when the stream's first episode has
// finished: a moment of the stream, not of the clock.
func afterFirstEpisode(env *testsuite.TestWorkflowEnvironment, fn func()) {
	var sent bool
	env.SetOnChildWorkflowCompletedListener(func(*workflow.Info, converter.EncodedValue, error) {
		if !sent {
			sent = true
			fn()
		}
	})
}

// script runs each step an hour of the test clock after the one before:
// the test environment fires a timer once the workflow waits, so each step
// finds the stream idle (paused) and the updates the step before sent
// answered.
func script(env *testsuite.TestWorkflowEnvironment, steps ...func()) {
	for i, step := range steps {
		env.RegisterDelayedCallback(step, time.Duration(i+1)*time.Hour)
	}
}

// TestPauseUpdateRefusalsAndResume: a pause update pauses the stream and
// answers "paused"; while it is paused a second pause, a resume-less raise
// of a negative budget and an experiment cap of a stream of no experiment
// are refused and change nothing; a resume update answers "running" and
// wakes the stream, which plays every episode.
func TestPauseUpdateRefusalsAndResume(t *testing.T) {
	env, st := steeredStream(t, 6)
	var pause, resume *answer
	var refusals []*answer
	afterFirstEpisode(env, func() { pause = st.send(contract.UpdatePause) })
	paused := -1
	script(env, func() {
		require.True(t, pause.accepted(t).Paused)
		paused = progressOf(t, env).Cursor
		refusals = append(refusals, st.send(contract.UpdatePause), st.send(contract.UpdateRaiseBudget, settings.Budget{Tokens: -1}),
			st.send(contract.UpdateRaiseExperimentBudget, settings.Budget{USD: 5}))
	}, func() {
		refusals[0].refused(t, "the stream is already paused")
		refusals[1].refused(t, "the new budget: budget.usd and budget.tokens must not be negative (0: no cap), got 0 and -1")
		refusals[2].refused(t, "the stream is no condition of an experiment with a budget")
		p := progressOf(t, env)
		require.True(t, p.Paused, "refusals change nothing")
		require.Equal(t, paused, p.Cursor, "nothing moves while paused")
		require.Equal(t, &settings.Budget{}, p.Budget, "the refused budget was not taken")
		resume = st.send(contract.UpdateResume)
	})
	env.ExecuteWorkflow(workflows.StreamWorkflow, spec(0, 100))
	require.NoError(t, env.GetWorkflowError())
	p := resume.accepted(t)
	require.False(t, p.Paused)
	require.Equal(t, paused, p.Cursor, "answered before the stream moved on")
	var res contract.StreamResult
	require.NoError(t, env.GetWorkflowResult(&res))
	require.False(t, res.Stopped)
	require.Equal(t, 6, res.Episodes, "the resume woke the stream: it played the rest")
	require.Less(t, paused, 6)
}

// TestStopUpdate: a stop update answers "stopping"; a second stop, a pause
// and a resume of the stopping stream are refused; it stops after the
// episode it plays.
func TestStopUpdate(t *testing.T) {
	env, st := steeredStream(t, 6)
	afterFirstEpisode(env, func() {
		st.send(contract.UpdateStop)
		st.send(contract.UpdateStop)
		st.send(contract.UpdatePause)
		st.send(contract.UpdateResume)
	})
	env.ExecuteWorkflow(workflows.StreamWorkflow, spec(0, 100))
	require.NoError(t, env.GetWorkflowError())
	require.Len(t, st.answers, 4)
	require.True(t, st.answers[0].accepted(t).Stopping)
	st.answers[1].refused(t, "the stream is already stopping")
	st.answers[2].refused(t, "the stream is stopping: it plays no more episodes")
	st.answers[3].refused(t, "the stream is stopping: it plays no more episodes")
	var res contract.StreamResult
	require.NoError(t, env.GetWorkflowResult(&res))
	require.True(t, res.Stopped)
	require.Less(t, res.Episodes, 6)
}

// TestUpdatesAfterTheLastEpisode: once the stream has played its last
// episode (it records its result), a pause, stop or resume is refused; a
// raise is taken (it changes nothing the stream will play).
func TestUpdatesAfterTheLastEpisode(t *testing.T) {
	env, st := steeredStream(t, 2)
	env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, _ converter.EncodedValues) {
		if info.ActivityType.Name == acts.CompleteRun.Name() {
			st.send(contract.UpdatePause)
			st.send(contract.UpdateStop)
			st.send(contract.UpdateResume)
			st.send(contract.UpdateRaiseBudget, settings.Budget{USD: 1})
		}
	})
	env.ExecuteWorkflow(workflows.StreamWorkflow, spec(0, 100))
	require.NoError(t, env.GetWorkflowError())
	require.Len(t, st.answers, 4)
	for _, a := range st.answers[:3] {
		a.refused(t, "the stream has played its last episode: there is nothing left to pause, resume or stop")
	}
	p := st.answers[3].accepted(t)
	require.Equal(t, &settings.Budget{USD: 1}, p.Budget)
	require.Equal(t, 2, p.Cursor)
}

// TestBudgetPauseRefusalsAndRaise: a stream its token cap paused (a spend
// of 100 tokens reaches a cap of 100) refuses a resume (it would pause again
// at its next check), a pause, caps the spend still reaches (50, and 100:
// a cap is reached at it) and an experiment cap; a raise to 101 answers
// "running" with the new cap in force and wakes it.
func TestBudgetPauseRefusalsAndRaise(t *testing.T) {
	env, st := steeredStream(t, 6)
	env.OnActivity(acts.RunSpend.Name(), mock.Anything, mock.Anything).Return(contract.Spend{Tokens: 100}, nil)
	sp := spec(0, 100).WithDefaults() // settings of their own, not all defaults
	sp.Settings.Budget = settings.Budget{Tokens: 100}
	var raise *answer
	script(env, func() {
		p := progressOf(t, env)
		require.Equal(t, "budget", p.PausedBy)
		require.Equal(t, 1, p.Cursor)
		st.send(contract.UpdateResume)
		st.send(contract.UpdatePause)
		st.send(contract.UpdateRaiseBudget, settings.Budget{Tokens: 50})
		st.send(contract.UpdateRaiseBudget, settings.Budget{Tokens: 100})
		st.send(contract.UpdateRaiseExperimentBudget, settings.Budget{Tokens: 500})
	}, func() {
		st.answers[0].refused(t, "the stream is paused by its budget (tokens 100 of 100): raise its cap (clinevo stream resume t --raise-budget")
		st.answers[1].refused(t, "the stream is already paused by its budget (tokens 100 of 100)")
		const still = "the run's spend at the last check reaches the new cap (tokens 100 of %d): the stream would stay paused"
		st.answers[2].refused(t, fmt.Sprintf(still, 50))
		st.answers[3].refused(t, fmt.Sprintf(still, 100))
		st.answers[4].refused(t, "the stream is no condition of an experiment with a budget")
		p := progressOf(t, env)
		require.True(t, p.Paused)
		require.Equal(t, 1, p.Cursor)
		require.Equal(t, &settings.Budget{Tokens: 100}, p.Budget)
		raise = st.send(contract.UpdateRaiseBudget, settings.Budget{Tokens: 101})
	})
	env.ExecuteWorkflow(workflows.StreamWorkflow, sp)
	require.NoError(t, env.GetWorkflowError())
	p := raise.accepted(t)
	require.False(t, p.Paused)
	require.Empty(t, p.PausedBy)
	require.Equal(t, &settings.Budget{Tokens: 101}, p.Budget)
	require.Equal(t, &contract.Spend{Tokens: 100}, p.Spend)
	var res contract.StreamResult
	require.NoError(t, env.GetWorkflowResult(&res))
	require.Equal(t, 6, res.Episodes, "the raise woke the stream: 100 tokens stay below 101")
}

// TestExperimentBudgetPauseRefusalsAndRaise: a stream its experiment's cap
// paused (a total of USD 2 reaches a cap of 2) refuses a resume, and caps
// the total still reaches, whether sent as the experiment's (2) or, while
// that cap paused it, as the run's (1.5, which is the experiment cap's
// then); the experiment cap raised to 3 answers "running" and wakes it.
func TestExperimentBudgetPauseRefusalsAndRaise(t *testing.T) {
	env, st := steeredStream(t, 6)
	env.OnActivity(acts.ExperimentSpend.Name(), mock.Anything, mock.Anything).Return(contract.Spend{USD: 2}, nil)
	sp := spec(0, 100)
	sp.ExperimentBudget = &contract.ExperimentBudget{Experiment: "x", Runs: []string{"t", "t2"}, Budget: settings.Budget{USD: 2}}
	var raise *answer
	script(env, func() {
		require.Equal(t, "experiment budget", progressOf(t, env).PausedBy)
		st.send(contract.UpdateResume)
		st.send(contract.UpdateRaiseExperimentBudget, settings.Budget{USD: 2})
		st.send(contract.UpdateRaiseBudget, settings.Budget{USD: 1.5})
	}, func() {
		st.answers[0].refused(t, "the stream is paused by its experiment's budget (USD 2.0000 of 2.0000): raise that cap (clinevo experiment raise-budget x")
		const still = "the experiment's spend at the last check reaches the new cap (USD 2.0000 of %.4f): the stream would stay paused"
		st.answers[1].refused(t, fmt.Sprintf(still, 2.0))
		st.answers[2].refused(t, fmt.Sprintf(still, 1.5))
		raise = st.send(contract.UpdateRaiseExperimentBudget, settings.Budget{USD: 3})
	})
	env.ExecuteWorkflow(workflows.StreamWorkflow, sp)
	require.NoError(t, env.GetWorkflowError())
	p := raise.accepted(t)
	require.False(t, p.Paused)
	require.Equal(t, &settings.Budget{USD: 3}, p.ExperimentBudget)
	require.Equal(t, &settings.Budget{}, p.Budget, "the run's own cap is untouched")
	var res contract.StreamResult
	require.NoError(t, env.GetWorkflowResult(&res))
	require.Equal(t, 6, res.Episodes)
}

// TestExperimentCapSignalOnAStreamOfNoExperiment: the signal of an
// experiment cap (which the update refuses) reaching a stream of no
// experiment with a budget changes nothing it does: the stream plays on
// instead of failing its workflow task at its next check.
func TestExperimentCapSignalOnAStreamOfNoExperiment(t *testing.T) {
	env, _ := steeredStream(t, 4)
	afterFirstEpisode(env, func() { env.SignalWorkflow(contract.SignalRaiseExperimentBudget, settings.Budget{USD: 5}) })
	env.ExecuteWorkflow(workflows.StreamWorkflow, spec(0, 100))
	require.NoError(t, env.GetWorkflowError())
	var res contract.StreamResult
	require.NoError(t, env.GetWorkflowResult(&res))
	require.Equal(t, 4, res.Episodes)
}
