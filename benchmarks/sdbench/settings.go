package sdbench

import (
	"fmt"
	"slices"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/settings"
)

// The MAI-DxO variants (Nori et al. 2025, §3.2, "from most cost conscious to
// least"): what the doctor may do and how its spending is tracked. SDBench
// is played by any doctor; a variant is the setting of the doctor's
// capabilities the paper enables or disables, enforced by the encounter so
// that it holds for a model and a built-in doctor alike.
const (
	// InstantAnswer diagnoses from the abstract alone: no questions, no
	// tests.
	InstantAnswer = "instant_answer"
	// QuestionOnly asks questions but orders no tests: its cost is one
	// physician visit.
	QuestionOnly = "question_only"
	// Budgeted tracks the spending against a maximum budget (cost_cap):
	// every order is first quoted, the test's price and the spending so
	// far (the paper's budget tracker), and performed only when ordered
	// again, so the doctor may drop a test once it has seen its price; an
	// order or a visit that would pass the budget is refused. Without a
	// cost_cap the tracker quotes and nothing is refused.
	Budgeted = "budgeted"
	// NoBudget is the full doctor with no cost tracking or limit (the
	// paper's "No Budget", also "Unconstrained Budget").
	NoBudget = "no_budget"
	// Ensemble runs several panels on the encounter and aggregates them
	// (EnsembleDoctor); its encounter is NoBudget's.
	Ensemble = "ensemble"
)

// Variants are the variants in the paper's order.
var Variants = []string{InstantAnswer, QuestionOnly, Budgeted, NoBudget, Ensemble}

// Episode are the benchmark's own episode keys, inline in settings.Episode.Ext
// (episode.visit_cost, episode.variant, episode.cost_cap, episode.panels).
// SDBench reads no test cap: the paper has none, so episode.max_tests is
// neither shown to the doctor nor enforced.
type Episode struct {
	// VisitCost is the price of one physician visit, VisitUSD (§2).
	VisitCost float64 `json:"visit_cost"`
	// Variant is the MAI-DxO variant (§3.2): instant_answer, question_only,
	// budgeted, no_budget (the default) or ensemble.
	Variant string `json:"variant"`
	// CostCap is the budgeted variant's maximum budget per encounter in
	// USD; the paper does not give its values (clinevo's choice per run),
	// and every other variant has none (0).
	CostCap float64 `json:"cost_cap"`
	// Panels is how many panels the ensemble variant runs; the paper does
	// not say (3 is clinevo's choice).
	Panels int `json:"panels"`
}

var defaults = Episode{VisitCost: VisitUSD, Variant: NoBudget, Panels: 3}

var _ bench.EpisodeSettings = Benchmark{}

// EpisodeDefaults are the keys with their defaults: the paper's visit
// price, no budget, three panels for the ensemble.
func (Benchmark) EpisodeDefaults() any { return defaults }

// orderModeKey is the key the variants replaced (at 403a52f): builds before
// it record `order_mode: direct` in every run's settings, and
// `ask_before_order` in an SDBench run that quoted its orders first.
const orderModeKey = "order_mode"

var _ bench.RetiredSettings = Benchmark{}

// RetiredEpisodeKeys: episode.order_mode, which runs started before the
// variants still carry.
func (Benchmark) RetiredEpisodeKeys() []string { return []string{orderModeKey} }

// EpisodeOf reads the keys of s over their defaults; the error names the key.
// A run recorded with the retired episode.order_mode ask_before_order (its
// orders quoted before they were performed) and no variant is the budgeted
// variant, whose budget tracker quotes every order; direct is no_budget, the
// default.
func EpisodeOf(s settings.Settings) (Episode, error) {
	e := defaults
	if err := s.Episode.Decode(&e); err != nil {
		return Episode{}, err
	}
	if _, set := s.Episode.Ext["variant"]; !set && s.Episode.Ext[orderModeKey] == "ask_before_order" {
		e.Variant = Budgeted
	}
	return e, nil
}

func (e Episode) validate() error {
	switch {
	case e.VisitCost < 0:
		return fmt.Errorf("episode.visit_cost must not be negative, got %v", e.VisitCost)
	case !slices.Contains(Variants, e.Variant):
		return fmt.Errorf("episode.variant %q, want one of %v", e.Variant, Variants)
	case e.CostCap < 0:
		return fmt.Errorf("episode.cost_cap must not be negative, got %v", e.CostCap)
	case e.Variant != Budgeted && e.CostCap != 0:
		return fmt.Errorf("episode.cost_cap %v is the budgeted variant's; variant %s has no budget", e.CostCap, e.Variant)
	case e.Variant == Ensemble:
		return PanelsRange.Check("episode.panels (the ensemble variant's)", e.Panels)
	}
	return nil
}

// PanelsRange is the ensemble's number of panels: two make an ensemble; the
// upper bound is clinevo's choice (the paper gives none), far above the
// default 3, so that a typo does not ask a model a million times a turn.
var PanelsRange = settings.Range{Min: 2, Max: 20}

// Quotes reports whether orders are quoted before they are performed (the
// budgeted variant's budget tracker).
func (e Episode) Quotes() bool { return e.Variant == Budgeted }

// actions are the variant's actions (§3.2): instant answer diagnoses only,
// question only asks and diagnoses.
func (e Episode) actions() []clinic.ActionKind {
	switch e.Variant {
	case InstantAnswer:
		return []clinic.ActionKind{clinic.Finalize}
	case QuestionOnly:
		return []clinic.ActionKind{clinic.Ask, clinic.Finalize}
	}
	return Actions
}

// Mode names the variant as the paper does: "no budget", "budgeted $X",
// "ensemble of N".
func (e Episode) Mode() string {
	switch e.Variant {
	case Budgeted:
		if e.CostCap == 0 {
			return "budgeted, no maximum"
		}
		return fmt.Sprintf("budgeted $%g", e.CostCap)
	case Ensemble:
		return fmt.Sprintf("ensemble of %d", e.Panels)
	case InstantAnswer:
		return "instant answer"
	case QuestionOnly:
		return "question only"
	}
	return "no budget"
}
