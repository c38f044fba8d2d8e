package benchtest

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/episode"
	"github.com/clinevo/clinevo/settings"
)

// recorder is a require.TestingT that notes a failure instead of failing.
type recorder struct{ msgs []string }

func (r *recorder) Errorf(format string, args ...any) {
	r.msgs = append(r.msgs, fmt.Sprintf(format, args...))
}
func (r *recorder) FailNow() { panic(r) }

// fails reports whether check fails, and how.
func fails(check func(require.TestingT)) (failed bool, msg string) {
	r := &recorder{}
	func() {
		defer func() {
			if p := recover(); p != nil && p != r {
				panic(p)
			}
		}()
		check(r)
	}()
	if len(r.msgs) > 0 {
		msg = r.msgs[0]
	}
	return len(r.msgs) > 0, msg
}

type leakyView struct {
	Phase string
	Facts []clinic.Fact // the patient's hidden facts
}

func (leakyView) DoctorViewExt() {}

type anyView struct{ Note any }

func (anyView) DoctorViewExt() {}

type cleanView struct {
	Phase   string
	Targets []string
}

func (cleanView) DoctorViewExt() {}

// The suite's own checks can fail: a view type with a hidden field or an
// open one, an undeclared metric, a score out of range.
func TestChecksCanFail(t *testing.T) {
	ok, msg := fails(func(t require.TestingT) { checkViewType(t, nil, reflect.TypeFor[leakyView]()) })
	require.True(t, ok)
	require.Contains(t, msg, "Facts")
	ok, _ = fails(func(t require.TestingT) { checkViewType(t, nil, reflect.TypeFor[anyView]()) })
	require.True(t, ok, "an interface field could hold anything")
	ok, _ = fails(func(t require.TestingT) {
		checkViewType(t, []reflect.Type{reflect.TypeFor[[]string]()}, reflect.TypeFor[cleanView]())
	})
	require.True(t, ok, "a benchmark's own hidden type")
	ok, msg = fails(func(t require.TestingT) { checkViewType(t, nil, reflect.TypeFor[cleanView]()) })
	require.False(t, ok, msg)

	ms := []bench.Metric{{Name: "s", Shared: true, Min: 0, Max: 1}, {Name: "d", Min: 0, Max: 1}}
	ok, msg = fails(func(t require.TestingT) {
		checkScores(t, ms, clinic.Scores{S: 0.5, Metrics: map[string]float64{"w": 1}}, "c1")
	})
	require.True(t, ok)
	require.Contains(t, msg, `metric "w" is produced but not declared`)
	ok, _ = fails(func(t require.TestingT) { checkScores(t, ms, clinic.Scores{S: 1.5}, "c1") })
	require.True(t, ok, "S outside [0, 1]")
	ok, _ = fails(func(t require.TestingT) { checkScores(t, ms, clinic.Scores{S: 0.5, U: 0.2}, "c1") })
	require.True(t, ok, "U is not declared, so it must stay 0")
	ok, msg = fails(func(t require.TestingT) {
		checkScores(t, ms, clinic.Scores{S: 0.5, Metrics: map[string]float64{"d": 1}}, "c1")
	})
	require.False(t, ok, msg)
}

// staged is a benchmark whose closing action is masked until the doctor has
// asked once: a workflow with states.
type staged struct{}

func (staged) Name() string { return "staged" }
func (staged) Actions(settings.Settings) []clinic.ActionKind {
	return []clinic.ActionKind{clinic.Ask, clinic.Finalize}
}
func (staged) Validate(settings.Settings) error { return nil }
func (staged) ValidateCase(*clinic.Case) error  { return nil }
func (staged) Start(_ clinic.Case, _ settings.Settings, _ episode.Roles, events []clinic.Event) (episode.Env, error) {
	e := &stagedEnv{}
	for _, ev := range events {
		e.Record(ev)
	}
	return e, nil
}
func (staged) Score(context.Context, bench.ScoreInput) (clinic.Scores, error) {
	return clinic.Scores{}, nil
}
func (staged) Metrics() []bench.Metric { return nil }

type stagedEnv struct{ episode.Log }

func (e *stagedEnv) View([]clinic.CardHint, []string) clinic.DoctorView {
	if e.Len() == 0 {
		return clinic.DoctorView{Actions: []string{string(clinic.Ask)}, Phase: "asking"}
	}
	return clinic.DoctorView{Actions: []string{string(clinic.Finalize)}, Phase: "closing", Turn: e.Len()}
}

func (e *stagedEnv) Step(_ context.Context, in episode.StepInput) (clinic.Event, error) {
	ev := clinic.Event{Turn: e.Len(), Action: in.Output.Action, Status: clinic.StatusMasked}
	switch {
	case in.Output.Action == clinic.Ask && e.Len() == 0:
		ev.Status = clinic.StatusReturned
	case in.Output.Action == clinic.Finalize && e.Len() > 0:
		ev.Status, ev.Final = clinic.StatusFinalized, &clinic.FinalOutput{Diagnosis: []string{"x"}}
	}
	e.Record(ev)
	return ev, nil
}

func (e *stagedEnv) Revealed() string { return "" }

// TestActionsWalkThroughStates: an action the first view masks is tried in
// the state the walk reaches, and one no move is given for fails the check.
func TestActionsWalkThroughStates(t *testing.T) {
	moves := func(clinic.DoctorView) []clinic.DoctorOutput {
		return []clinic.DoctorOutput{{Action: clinic.Ask, Question: "q"}, {Action: clinic.Finalize, Diagnosis: []string{"x"}}}
	}
	cfg := Config{Cases: []clinic.Case{{ID: "c1"}}, Moves: moves}
	ok, msg := fails(func(t require.TestingT) { checkActions(t, staged{}, settings.Default(), cfg) })
	require.False(t, ok, msg)
	cfg.Moves = func(v clinic.DoctorView) []clinic.DoctorOutput { return moves(v)[:1] }
	ok, msg = fails(func(t require.TestingT) { checkActions(t, staged{}, settings.Default(), cfg) })
	require.True(t, ok)
	require.Contains(t, msg, "declared action FINALIZE")
}
