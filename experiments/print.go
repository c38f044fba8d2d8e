package experiments

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/internal/textfmt"
	"github.com/clinevo/clinevo/settings"
)

// Resolved is a valid spec with every condition's settings resolved, as
// `experiment validate --json` prints it.
type Resolved struct {
	Conditions []ResolvedCondition `json:"conditions"`
	Experiment string              `json:"experiment"`
	Valid      bool                `json:"valid"`
}

// ResolvedCondition is a condition with the settings it runs with.
type ResolvedCondition struct {
	contract.ConditionSpec
	Settings settings.Settings `json:"settings"`
}

// Resolve resolves the settings of every condition of a spec that loaded.
func Resolve(spec contract.ExperimentSpec) (Resolved, error) {
	conds := make([]ResolvedCondition, len(spec.Conditions))
	for i, c := range spec.Conditions {
		s, err := spec.SettingsOf(i)
		if err != nil {
			return Resolved{}, err
		}
		conds[i] = ResolvedCondition{c, s}
	}
	return Resolved{Conditions: conds, Experiment: spec.Name, Valid: true}, nil
}

// WriteConditions prints `experiment validate`'s table: a row per condition
// with what sets it apart, its benchmark's budgets among them (bench.Budgets,
// of the condition's benchmark in set; one set lacks is an error).
func WriteConditions(w io.Writer, spec contract.ExperimentSpec, set bench.Set) error {
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	fmt.Fprintf(tw, "experiment %s: %d conditions, valid\n", spec.Name, len(spec.Conditions))
	fmt.Fprintln(tw, "CONDITION\tKIND\tPROFILE\tMEMORY\tDEPENDS ON\tBUDGETS\tMODE\tFEEDBACK\tMETHOD\tB_P\tB_M\tK\tCARDS\tDOCTOR")
	for i, c := range spec.Conditions {
		s, err := spec.SettingsOf(i)
		if err != nil {
			return err
		}
		doctor := "builtin"
		if r := s.Roles["doctor"]; r.Backend == settings.OpenAI {
			doctor = r.Model
		}
		mem := string(c.Memory)
		if c.Kind == contract.KindHeldOut {
			mem = "frozen"
		}
		bm, err := set.Of(s)
		if err != nil {
			return fmt.Errorf("conditions[%d] (%s): %w", i, c.Name, err)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t%d\t%s\t%s\n", c.Name, c.Kind, s.Benchmark, textfmt.OrDash(mem),
			textfmt.OrDash(c.Dependency()), bench.Budgets(bm, s), s.Episode.Mode, s.Evolver.Mode, s.Evolver.MethodName(),
			s.Evolver.RuleBudget, s.Evolver.MemoryBudget, s.Memory.K, strings.Join(s.Evolver.CardKinds, ","), doctor)
	}
	return tw.Flush()
}
