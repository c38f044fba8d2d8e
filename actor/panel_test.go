package actor_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/actor"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus/synth"
	"github.com/clinevo/clinevo/episode"
	"github.com/clinevo/clinevo/settings"
)

// TestReconcile: the panel commits when the hypothesis role is ready or on
// the last turn, else asks the checklist's questions in one turn, else
// orders its tests; an action the view does not allow, or a commit missing a
// required closing field, goes to the base doctor.
func TestReconcile(t *testing.T) {
	v := clinic.DoctorView{Actions: []string{"ASK", "REQUEST_TEST", "FINALIZE"}, FinalFields: []string{"diagnosis"}, MaxTurns: 10, Turn: 2}
	final := &clinic.DoctorOutput{Diagnosis: []string{"migraine"}}
	hyp := actor.PanelNote{Role: actor.Hypothesis, Differential: []string{"migraine", "tension headache"}, Final: final}
	check := actor.PanelNote{Role: actor.Checklist, Questions: []string{"When did it start?", "Any aura?"}, Tests: []string{"ct head"}}
	for _, tc := range []struct {
		name  string
		v     func(clinic.DoctorView) clinic.DoctorView
		notes []actor.PanelNote
		want  clinic.DoctorOutput
		ok    bool
	}{
		{"questions first, in one turn", nil, []actor.PanelNote{hyp, check},
			clinic.DoctorOutput{Action: clinic.Ask, Question: "When did it start? Any aura?"}, true},
		{"then tests", nil, []actor.PanelNote{hyp, {Role: actor.Checklist, Tests: []string{"ct head", "ecg"}}},
			clinic.DoctorOutput{Action: clinic.RequestTest, TestName: "ct head; ecg"}, true},
		{"ready commits", nil, []actor.PanelNote{{Role: actor.Hypothesis, Differential: hyp.Differential, Ready: true, Final: final}, check},
			clinic.DoctorOutput{Action: clinic.Finalize, Diagnosis: []string{"migraine"}}, true},
		{"last turn commits", func(v clinic.DoctorView) clinic.DoctorView { v.Turn = 9; return v }, []actor.PanelNote{hyp, check},
			clinic.DoctorOutput{Action: clinic.Finalize, Diagnosis: []string{"migraine"}}, true},
		{"nothing left commits", nil, []actor.PanelNote{hyp, {Role: actor.Checklist}},
			clinic.DoctorOutput{Action: clinic.Finalize, Diagnosis: []string{"migraine"}}, true},
		{"a missing closing field is the base doctor's", func(v clinic.DoctorView) clinic.DoctorView { v.FinalFields = []string{"diagnosis", "plan"}; return v },
			[]actor.PanelNote{{Role: actor.Hypothesis, Ready: true, Final: final}}, clinic.DoctorOutput{Action: clinic.Finalize, Diagnosis: []string{"migraine"}}, false},
		{"an action the view lacks is the base doctor's", func(v clinic.DoctorView) clinic.DoctorView { v.Actions = []string{"ASK", "DIAGNOSE"}; return v },
			[]actor.PanelNote{hyp, {Role: actor.Checklist, Tests: []string{"ecg"}}}, clinic.DoctorOutput{Action: clinic.RequestTest, TestName: "ecg"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			view := v
			if tc.v != nil {
				view = tc.v(v)
			}
			got, ok := actor.Reconcile(view, tc.notes)
			require.Equal(t, tc.ok, ok)
			require.Equal(t, tc.want.Action, got.Action)
			require.Equal(t, tc.want.Question, got.Question)
			require.Equal(t, tc.want.TestName, got.TestName)
			require.Equal(t, tc.want.Diagnosis, got.Diagnosis)
		})
	}
}

// baseDoctor counts the turns the panel defers to it.
type baseDoctor struct{ n *int }

func (b baseDoctor) Decide(ctx context.Context, v clinic.DoctorView) (actor.Decision, error) {
	*b.n++
	return actor.Builtin{}.Decide(ctx, v)
}

// TestBuiltinPanel plays question-and-test encounters with the built-in
// panel: it groups history questions (several in one turn), every turn's
// rationale carries the roles' notes, it ends by committing to a diagnosis
// within the turn limit, and, where the view allows its actions, it never
// defers to the base doctor.
func TestBuiltinPanel(t *testing.T) {
	s := settings.Default()
	rules := episode.Rules{Actions: []clinic.ActionKind{clinic.Ask, clinic.RequestTest, clinic.Finalize}, FinalFields: []string{"diagnosis"}, FreeText: true, Invent: true}
	deferred := 0
	p := actor.BuiltinPanel(baseDoctor{&deferred})
	grouped := 0
	for _, c := range synth.Generate(7)["stream"][:6] {
		env := episode.New(c, s.Episode, rules, episode.BuiltinRoles())
		for !env.Done() {
			d, err := p.Decide(context.Background(), env.View(nil, nil))
			require.NoError(t, err)
			require.NotEmpty(t, d.Output.Rationale)
			if d.Output.Action == clinic.Ask && strings.Count(d.Output.Question, "?") > 1 {
				grouped++
			}
			_, err = env.Step(context.Background(), episode.StepInput{Output: d.Output})
			require.NoError(t, err)
		}
		final, end := env.Final()
		require.Equal(t, clinic.EndFinalized, end, c.ID)
		require.NotEmpty(t, final.Diagnosis)
	}
	require.Positive(t, grouped, "the panel asks several questions in one turn")
	require.Zero(t, deferred)
}
