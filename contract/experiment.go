package contract

import (
	"fmt"
	"slices"
	"strings"

	"github.com/clinevo/clinevo/settings"
)

// ExperimentSpec is a named set of conditions run as one experiment
// (ExperimentWorkflow) and reported together.
type ExperimentSpec struct {
	Name            string `yaml:"name" json:"name"`
	Description     string `yaml:"description" json:"description,omitempty"`
	Corpus          string `yaml:"corpus" json:"corpus"`
	Limit           int    `yaml:"limit" json:"limit,omitempty"`
	StageSize       int    `yaml:"stage_size" json:"stage_size"`
	HeldOut         string `yaml:"heldout" json:"heldout,omitempty"`
	HeldOutLimit    int    `yaml:"heldout_limit" json:"heldout_limit,omitempty"`
	UpdateStages    []int  `yaml:"update_stages" json:"update_stages,omitempty"` // stages of shifted presentations, for the update response
	EvalConcurrency int    `yaml:"eval_concurrency" json:"eval_concurrency,omitempty"`
	ActivityTimeout int    `yaml:"activity_timeout_seconds" json:"activity_timeout_seconds,omitempty"`
	// Settings apply to every condition, on top of Base.
	Settings settings.Overrides `yaml:"settings" json:"settings,omitempty"`
	// Budget caps the model spend of the whole experiment, summed over its
	// conditions' runs (settings.budget caps each run on its own): every
	// stream condition checks it with its own and pauses ("experiment
	// budget") when the total reaches it. nil or zero: no cap.
	Budget *settings.Budget `yaml:"budget" json:"budget,omitempty"`
	// Base is the configuration the experiment was submitted with (the
	// submitter's config file, environment and flags); zero means the defaults.
	Base settings.Settings `yaml:"-" json:"base"`
	// Orderings plays every stream condition, and every condition that
	// depends on one, over this many orderings of the same cases (Expand):
	// the first is the published order, each other a seeded permutation
	// (Seeds). 0 or 1: the published order only.
	Orderings int `yaml:"orderings" json:"orderings,omitempty"`
	// Seeds are the permutation seeds of orderings 2 to Orderings (default
	// 1, 2, ...: clinevo's choice), each a positive integer, no two alike.
	Seeds []uint64 `yaml:"seeds" json:"seeds,omitempty"`
	// Epochs plays every case of every held-out condition this many times
	// (EpochsOf; a condition may set its own), each play its own episode
	// with its epoch in its record, for the reducers of the report (mean,
	// pass@k, pass^k). 0 or 1: each case once, as before epochs existed.
	Epochs     int             `yaml:"epochs" json:"epochs,omitempty"`
	Conditions []ConditionSpec `yaml:"conditions" json:"conditions"`
	// Resume holds, by condition name, the stream conditions a stopped
	// experiment had started and not finished, each with the spec it recorded
	// and the state rebuilt from its records (engine.ResumeExperiment): they
	// continue from their last completed episode instead of starting over.
	Resume map[string]StreamSpec `yaml:"-" json:"resume,omitempty"`
	// Claim is what the experiment was first started as (its first workflow
	// run), as StreamSpec.Claim is a stream's. Leave it empty.
	Claim string `yaml:"-" json:"claim,omitempty"`
	// ClaimsConditions says that the experiment claims the run ID of every
	// condition from the moment it starts: no other stream or experiment
	// may take one (ConditionOf). Experiments started before claims were
	// made have it false. Leave it unset: the experiment sets it.
	ClaimsConditions bool `yaml:"-" json:"claims_conditions,omitempty"`
}

// ConditionOf is the condition of e whose run ID run is, when e claims its
// conditions' run IDs (ClaimsConditions); ok is false otherwise.
func (e ExperimentSpec) ConditionOf(run string) (ConditionSpec, bool) {
	if !e.ClaimsConditions {
		return ConditionSpec{}, false
	}
	for _, c := range e.Conditions {
		if e.RunID(c.Name) == run {
			return c, true
		}
	}
	return ConditionSpec{}, false
}

// ConditionSpec is one condition: a stream, or a held-out evaluation.
type ConditionSpec struct {
	Name      string     `yaml:"name" json:"name"`
	Label     string     `yaml:"label" json:"label,omitempty"` // a longer name for tables
	Kind      Kind       `yaml:"kind" json:"kind"`             // stream | heldout
	Corpus    string     `yaml:"corpus" json:"corpus,omitempty"`
	Limit     int        `yaml:"limit" json:"limit,omitempty"`
	Memory    MemoryMode `yaml:"memory" json:"memory,omitempty"`         // stream: disabled | empty | carry
	CarryFrom string     `yaml:"carry_from" json:"carry_from,omitempty"` // a stream condition whose memory and rules to continue
	StageEval bool       `yaml:"stage_eval" json:"stage_eval,omitempty"`
	Retention string     `yaml:"retention" json:"retention,omitempty"` // final | matrix
	// From names, for a held-out condition, the stream condition whose final
	// memory and rules are frozen for it (H3); empty: no memory (H0).
	From string `yaml:"from" json:"from,omitempty"`
	// PairedWith names a condition played on the same cases; the report
	// compares the two case by case (e.g. static full-vignette vs interactive).
	PairedWith string `yaml:"paired_with" json:"paired_with,omitempty"`
	// Epochs, for a held-out condition, overrides the experiment's epochs.
	Epochs int `yaml:"epochs" json:"epochs,omitempty"`
	// Settings apply to this condition, on top of the experiment's.
	Settings settings.Overrides `yaml:"settings" json:"settings,omitempty"`
	// Ordering is the ordering (1 to Orderings) a condition of an expanded
	// spec plays, 0 for one the orderings do not repeat (Expand); Replicates
	// names the condition of the first ordering it repeats (empty for that
	// one); Order and OrderBlock are its stream's StreamSpec.Order and
	// OrderBlock. Expand sets them; a spec file does not.
	Ordering   int    `yaml:"-" json:"ordering,omitempty"`
	Replicates string `yaml:"-" json:"replicates,omitempty"`
	Order      uint64 `yaml:"-" json:"order,omitempty"`
	OrderBlock int    `yaml:"-" json:"order_block,omitempty"`
}

// RunID is the run ID of a condition.
func (e ExperimentSpec) RunID(cond string) string { return e.Name + "-" + cond }

// Dependency is the condition a condition waits for ("" for none).
func (c ConditionSpec) Dependency() string {
	if c.Kind == KindHeldOut {
		return c.From
	}
	return c.CarryFrom
}

// Title is the label, or the name.
func (c ConditionSpec) Title() string {
	if c.Label != "" {
		return c.Label
	}
	return c.Name
}

// SettingsOf resolves a condition's settings: Base (or the defaults), then the
// experiment's overrides, then the condition's.
func (e ExperimentSpec) SettingsOf(i int) (settings.Settings, error) {
	c := e.Conditions[i]
	s, err := settings.Apply(e.Base.OrDefault(), fmt.Sprintf("conditions[%d] (%s).settings", i, c.Name), e.Settings, c.Settings)
	if err != nil {
		return s, fmt.Errorf("experiment %s: %w", e.Name, err)
	}
	if err := s.Validate(); err != nil {
		return s, fmt.Errorf("experiment %s: conditions[%d] (%s): settings: %w", e.Name, i, c.Name, err)
	}
	return s, nil
}

// Validate names the condition and field of the first problem, every
// condition's settings included.
func (e ExperimentSpec) Validate() error {
	if err := e.validateTop(); err != nil {
		return err
	}
	if e.Orderings > 1 && !e.Expanded() {
		return e.Expand().Validate() // the repeats' names and references too
	}
	seen := map[string]int{} // the conditions by name, as far as checked
	for i, c := range e.Conditions {
		if err := e.validateCondition(i, c, seen); err != nil {
			return err
		}
		seen[c.Name] = i
	}
	if err := e.validateRefs(seen); err != nil {
		return err
	}
	if e.Corpus == "" && slices.ContainsFunc(e.Conditions, func(c ConditionSpec) bool { return c.Kind == KindStream && c.Corpus == "" }) {
		return fmt.Errorf("experiment %s: corpus is required", e.Name)
	}
	return nil
}

// validateRefs checks what names other conditions once all are known
// (seen): paired_with and the streams to resume.
func (e ExperimentSpec) validateRefs(seen map[string]int) error {
	for i, c := range e.Conditions {
		if c.PairedWith == "" {
			continue
		}
		j, ok := seen[c.PairedWith]
		if !ok || j == i {
			return fmt.Errorf("experiment %s: conditions[%d] (%s): paired_with %q is not another condition", e.Name, i, c.Name, c.PairedWith)
		}
	}
	for name, s := range e.Resume {
		i, ok := seen[name]
		if !ok || e.Conditions[i].Kind != KindStream {
			return fmt.Errorf("experiment %s: resume: %q is not a stream condition", e.Name, name)
		}
		if s.RunID != e.RunID(name) {
			return fmt.Errorf("experiment %s: resume: condition %s resumes run %q, want %q", e.Name, name, s.RunID, e.RunID(name))
		}
	}
	return nil
}

// validateTop checks the experiment's own keys: its name, its numbers, its
// settings and budget.
func (e ExperimentSpec) validateTop() error {
	if e.Name == "" {
		return fmt.Errorf("experiment: name is required")
	}
	if err := ValidateRunID(e.Name); err != nil {
		return fmt.Errorf("experiment: name: %w", err)
	}
	if len(e.Conditions) == 0 {
		return fmt.Errorf("experiment %s: conditions: at least one is required", e.Name)
	}
	checks := []numberCheck{{"limit", e.Limit, LimitRange}, {"stage_size", e.StageSize, StageSizeRange},
		{"heldout_limit", e.HeldOutLimit, LimitRange}, {"eval_concurrency", e.EvalConcurrency, EvalConcurrencyRange},
		{"activity_timeout_seconds", e.ActivityTimeout, ActivityTimeoutRange}}
	for i, st := range e.UpdateStages {
		checks = append(checks, numberCheck{fmt.Sprintf("update_stages[%d]", i), st, UpdateStageRange})
	}
	if err := numbers(checks...); err != nil {
		return fmt.Errorf("experiment %s: %w", e.Name, err)
	}
	if err := e.validateOrderings(); err != nil {
		return fmt.Errorf("experiment %s: %w", e.Name, err)
	}
	if err := e.validateEpochs(); err != nil {
		return fmt.Errorf("experiment %s: %w", e.Name, err)
	}
	if _, err := settings.Apply(e.Base.OrDefault(), "settings", e.Settings); err != nil {
		return fmt.Errorf("experiment %s: %w", e.Name, err)
	}
	if b := e.Budget; b != nil && (settings.CheckFinite("", b.USD) != nil || b.Tokens < 0) {
		return fmt.Errorf("experiment %s: budget.usd and budget.tokens must not be negative (0: no cap), got %v and %d", e.Name, b.USD, b.Tokens)
	}
	return nil
}

// validateCondition checks condition i against the conditions before it
// (seen, by name).
func (e ExperimentSpec) validateCondition(i int, c ConditionSpec, seen map[string]int) error {
	where := fmt.Sprintf("experiment %s: conditions[%d] (%s)", e.Name, i, c.Name)
	if c.Name == "" {
		return fmt.Errorf("%s: name is required", where)
	}
	if err := ValidateConditionRunID(e.RunID(c.Name)); err != nil {
		return fmt.Errorf("%s: the condition's run ID (<experiment>-<condition>): %w", where, err)
	}
	if _, dup := seen[c.Name]; dup {
		return fmt.Errorf("%s: duplicate condition name", where)
	}
	if err := LimitRange.Check("limit", c.Limit); err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	if err := c.validateKind(e.HeldOut); err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	if dep := c.Dependency(); dep != "" {
		j, ok := seen[dep]
		if !ok {
			return fmt.Errorf("%s: depends on %q, which is not an earlier condition", where, dep)
		}
		if e.Conditions[j].Kind != KindStream {
			return fmt.Errorf("%s: depends on %q, which is not a stream", where, dep)
		}
	}
	_, err := e.SettingsOf(i)
	return err
}

// validateKind checks the keys a condition's kind allows; heldOut is the
// experiment's held-out corpus.
func (c ConditionSpec) validateKind(heldOut string) error {
	switch c.Kind {
	case KindStream:
		switch {
		case c.Memory != "" && c.Memory != MemoryDisabled && c.Memory != MemoryEmpty && c.Memory != MemoryCarry:
			return fmt.Errorf("memory %q, want disabled, empty or carry", c.Memory)
		case c.Memory == MemoryCarry && c.CarryFrom == "":
			return fmt.Errorf("memory carry needs carry_from")
		case c.CarryFrom != "" && c.Memory != MemoryCarry:
			return fmt.Errorf("carry_from needs memory: carry")
		case c.Retention != "" && c.Retention != RetentionFinal && c.Retention != RetentionMatrix:
			return fmt.Errorf("retention %q, want final or matrix", c.Retention)
		case c.From != "":
			return fmt.Errorf("from is for heldout conditions; a stream continues another with memory: carry and carry_from")
		}
	case KindHeldOut:
		switch {
		case heldOut == "" && c.Corpus == "":
			return fmt.Errorf("a heldout condition needs the experiment's heldout corpus or its own corpus")
		case c.Memory != "" || c.CarryFrom != "" || c.StageEval || c.Retention != "":
			return fmt.Errorf("memory, carry_from, stage_eval and retention are for stream conditions")
		}
	default:
		return fmt.Errorf("kind %q, want stream or heldout", c.Kind)
	}
	return nil
}

// CorpusOf is the corpus a condition plays: its own, or else the experiment's
// held-out corpus for a held-out condition and its corpus for a stream.
func (e ExperimentSpec) CorpusOf(c ConditionSpec) string {
	switch {
	case c.Corpus != "":
		return c.Corpus
	case c.Kind == KindHeldOut:
		return e.HeldOut
	}
	return e.Corpus
}

// Corpora lists every corpus the experiment names, once each.
func (e ExperimentSpec) Corpora() []string {
	var out []string
	for _, r := range append([]string{e.Corpus, e.HeldOut}, condCorpora(e.Conditions)...) {
		if r != "" && !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}

func condCorpora(cs []ConditionSpec) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Corpus)
	}
	return out
}

// ValidateConditionRunID checks the run ID of a stream or of an
// experiment's condition, <experiment>-<condition>: a run ID, except that a
// variant's condition name may hold one VariantSep between its baseline's
// name and the variant's (A@cap45).
func ValidateConditionRunID(id string) error {
	base, variant, ok := strings.Cut(id, VariantSep)
	if !ok {
		return ValidateRunID(id)
	}
	if len(id) > MaxRunIDLength {
		return fmt.Errorf("run ID %q has %d characters: a run ID takes at most %d", id, len(id), MaxRunIDLength)
	}
	if err := ValidateRunID(base); err != nil {
		return err
	}
	if err := ValidateRunID(variant); err != nil {
		return fmt.Errorf("the variant after %q: %w", VariantSep, err)
	}
	return nil
}

// ExperimentBudget is an experiment's spend cap as each of its streams
// checks it: the cap and the runs whose spend it sums.
type ExperimentBudget struct {
	Experiment string          `json:"experiment"`
	Runs       []string        `json:"runs"`
	Budget     settings.Budget `json:"budget"`
}

// BudgetOf is the experiment's cap as its streams check it: every
// condition's run; nil when the experiment has no cap.
func (e ExperimentSpec) BudgetOf() *ExperimentBudget {
	if e.Budget == nil || e.Budget.IsZero() {
		return nil
	}
	b := &ExperimentBudget{Experiment: e.Name, Budget: *e.Budget}
	for _, c := range e.Conditions {
		b.Runs = append(b.Runs, e.RunID(c.Name))
	}
	return b
}
