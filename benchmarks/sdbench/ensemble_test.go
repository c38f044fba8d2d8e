package sdbench_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/actor"
	"github.com/clinevo/clinevo/benchmarks/sdbench"
	"github.com/clinevo/clinevo/clinic"
)

// scripted is an ensemble member that decides by the panel it is told it
// is (View.Panel), recording the panels it was shown.
type scripted struct {
	by   map[int]actor.Decision
	seen *[]int
}

func (s scripted) Decide(_ context.Context, v clinic.DoctorView) (actor.Decision, error) {
	k := sdbench.ViewOf(v).Panel
	*s.seen = append(*s.seen, k)
	return s.by[k], nil
}

// TestEnsemble: each member is told its panel; the ensemble commits when
// most members would, to the diagnosis most name; else it asks every
// question any member asks, else orders every test any orders, each once
// (the paper's ensemble charges duplicates once, §3.2); a member whose
// reply was unusable is left out.
func TestEnsemble(t *testing.T) {
	final := func(dx string) actor.Decision {
		return actor.Decision{Output: clinic.DoctorOutput{Action: clinic.Finalize, Diagnosis: []string{dx}}}
	}
	ask := func(qs ...string) actor.Decision {
		return actor.Decision{Output: sdbench.WithOutput(clinic.DoctorOutput{Action: clinic.Ask}, sdbench.Output{Questions: qs})}
	}
	order := func(ts string) actor.Decision {
		return actor.Decision{Output: clinic.DoctorOutput{Action: clinic.RequestTest, TestName: ts}}
	}
	v := clinic.DoctorView{Actions: []string{"ASK", "REQUEST_TEST", "FINALIZE"}, Ext: sdbench.View{Variant: sdbench.Ensemble, Panels: 3}}
	for _, tc := range []struct {
		name    string
		by      map[int]actor.Decision
		action  clinic.ActionKind
		want    []string // the diagnosis, the questions or the tests
		actions []string
	}{
		{"two of three commit: the diagnosis most name", map[int]actor.Decision{1: final("Migraine"), 2: final("tension headache"), 3: final("migraine")},
			clinic.Finalize, []string{"Migraine"}, nil},
		{"one commits, two ask: every question once", map[int]actor.Decision{1: final("Migraine"), 2: ask("Any aura?", "Any nausea?"), 3: ask("any aura?")},
			clinic.Ask, []string{"Any aura?", "Any nausea?"}, nil},
		{"orders: every test once", map[int]actor.Decision{1: order("ct head; complete blood count"), 2: order("CT head"), 3: {LLMError: true}},
			clinic.RequestTest, []string{"ct head", "complete blood count"}, nil},
		{"questions the variant does not allow give way to tests", map[int]actor.Decision{1: ask("Any aura?"), 2: order("ct head"), 3: final("Migraine")},
			clinic.RequestTest, []string{"ct head"}, []string{"REQUEST_TEST", "FINALIZE"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var seen []int
			vv := v
			if tc.actions != nil {
				vv.Actions = tc.actions
			}
			d, err := sdbench.EnsembleDoctor{Member: scripted{tc.by, &seen}, Panels: 3}.Decide(context.Background(), vv)
			require.NoError(t, err)
			require.Equal(t, []int{1, 2, 3}, seen)
			require.Equal(t, tc.action, d.Output.Action)
			switch tc.action {
			case clinic.Finalize:
				require.Equal(t, tc.want, d.Output.Diagnosis)
			case clinic.Ask:
				require.Equal(t, tc.want, sdbench.Questions(d.Output))
			default:
				require.Equal(t, tc.want, sdbench.Tests(d.Output))
			}
		})
	}
	var seen []int
	d, err := sdbench.EnsembleDoctor{Member: scripted{map[int]actor.Decision{1: {LLMError: true}, 2: {LLMError: true}}, &seen}, Panels: 2}.Decide(context.Background(), v)
	require.NoError(t, err)
	require.True(t, d.LLMError, "no usable member: an llm_error turn")

	s := withEpisode(sdSettings(), "variant", sdbench.Ensemble)
	_, ok := sdbench.Benchmark{}.ComposeDoctor(actor.Builtin{}, s).(sdbench.EnsembleDoctor)
	require.True(t, ok, "the ensemble variant composes the run's doctor")
	require.Equal(t, actor.Builtin{}, sdbench.Benchmark{}.ComposeDoctor(actor.Builtin{}, sdSettings()))
}
