package analysis

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/corpus"
	"github.com/clinevo/clinevo/internal/buildinfo"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/settings"
)

// Provenance is what a report was made from: the experiment as submitted,
// each condition's settings (by digest) and models, the corpora with their
// generator version and seed, the clinevo build that wrote the report, and
// when the experiment started and finished.
type Provenance struct {
	// Spec is the experiment spec as written: name, corpora, limits and
	// conditions with their setting overrides (not the submitter's whole
	// configuration, which the digests stand for).
	Spec json.RawMessage `json:"spec"`
	// Corpora are the corpus references the experiment names, builtin ones
	// spelled with their generator version and seed.
	Corpora []string `json:"corpora"`
	// BootstrapSeed fixes every bootstrap interval of the report.
	BootstrapSeed int                   `json:"bootstrap_seed"`
	Conditions    []ConditionProvenance `json:"conditions"`
	// Version is the clinevo build that wrote the report
	// (runtime/debug.ReadBuildInfo).
	Version string `json:"clinevo_version"`
	// Started and Finished are when the experiment was submitted and when
	// its result was stored (RFC 3339, UTC); Finished is empty while it runs.
	Started  string `json:"started,omitempty"`
	Finished string `json:"finished,omitempty"`
}

// ConditionProvenance is one condition's settings and models.
type ConditionProvenance struct {
	Name      string `json:"name"`
	Run       string `json:"run"`
	Corpus    string `json:"corpus"`
	Benchmark string `json:"profile"`
	// SettingsDigest is results.SettingsRef of the run's resolved settings:
	// two runs with one digest were played with the same settings.
	SettingsDigest string `json:"settings_digest"`
	// Models are the roles as "role: backend[/model]" (no endpoint, key
	// variable or key file).
	Models []string `json:"models"`
	// Method is the run's learning method (evolver.method).
	Method string `json:"method"`
	// Operators says what performed the method's operators when that is not
	// what its paper describes (Operators); empty otherwise.
	Operators string `json:"operators,omitempty"`
	// Fingerprints and ServedModels are, by role, the distinct
	// system_fingerprints and served model names the run's model replies
	// reported (Fingerprints, ServedModels); none for built-in roles or
	// providers that report none.
	Fingerprints map[string][]string `json:"fingerprints,omitempty"`
	ServedModels map[string][]string `json:"served_models,omitempty"`
}

// Fingerprints are, by role, the distinct system_fingerprints the model
// replies of a run's episodes reported (each sorted); a role none of whose
// replies reported one is left out. Two runs whose fingerprints of a role
// differ were served by different backend configurations of their
// provider, whatever their settings say: what a comparison of them should
// warn of.
func Fingerprints(recs []results.Record) map[string][]string {
	return distinctByRole(recs, func(u results.Usage) []string { return u.Fingerprints })
}

// ServedModels are, by role, the distinct model names the model replies of
// a run's episodes said served them (a snapshot an alias resolved to).
func ServedModels(recs []results.Record) map[string][]string {
	return distinctByRole(recs, func(u results.Usage) []string { return u.ServedModels })
}

func distinctByRole(recs []results.Record, names func(results.Usage) []string) map[string][]string {
	out := map[string][]string{}
	for _, r := range recs {
		for role, u := range r.Usage {
			for _, n := range names(u) {
				if !slices.Contains(out[role], n) {
					out[role] = append(out[role], n)
				}
			}
		}
	}
	for _, ns := range out {
		slices.Sort(ns)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// Operators is, for a prompt optimiser or playbook method (EvoPrompt, GEPA,
// ACE) run with the built-in evolver role, the note that its mutation,
// reflection and curation made their rules from clinevo's own rule
// proposals (evolver.proposals), so nobody reads an offline comparison as
// one of the papers' operators; "" for every other run.
func Operators(s settings.Settings) string {
	switch s.Evolver.MethodName() {
	case settings.MethodEvoPrompt, settings.MethodGEPA, settings.MethodACE:
	default:
		return ""
	}
	if r := s.Roles["evolver"]; r.Backend != "" && r.Backend != settings.Builtin {
		return ""
	}
	return "built-in evolver role: every new rule came from clinevo's own rule proposals, not the paper's operators"
}

// provenance builds a report's provenance from its input.
func provenance(in Input) *Provenance {
	p := &Provenance{BootstrapSeed: Seed, Version: buildinfo.Version(), Started: in.Run.Created, Finished: in.Run.Completed}
	spec := in.Spec
	spec.Base, spec.Resume, spec.Claim = settings.Settings{}, nil, ""
	if s := in.Stream; s != nil {
		// A stream report's spec is the stream's as submitted, without its
		// settings (the digest stands for them) and its carried state.
		st := *s
		st.Settings, st.State, st.Claim, st.RuleBook = settings.Settings{}, contract.StreamState{}, "", nil
		if b, err := json.Marshal(st); err == nil {
			var m map[string]json.RawMessage
			if json.Unmarshal(b, &m) == nil {
				delete(m, "settings")
				delete(m, "state")
				b, _ = json.Marshal(m)
			}
			p.Spec = b
		}
	} else if b, err := json.Marshal(spec); err == nil {
		var m map[string]json.RawMessage
		if json.Unmarshal(b, &m) == nil {
			delete(m, "base") // the digests stand for it
			b, _ = json.Marshal(m)
		}
		p.Spec = b
	}
	lib := corpus.NewLibrary(in.Benchmarks)
	for _, ref := range in.Spec.Corpora() {
		p.Corpora = append(p.Corpora, explicitCorpus(lib, ref))
	}
	runs := map[string]string{} // by condition: the run its result names
	for _, c := range in.Result.Conditions {
		runs[c.Name] = c.Run
	}
	for _, c := range in.Spec.Conditions {
		run := runs[c.Name]
		if run == "" {
			run = in.Spec.RunID(c.Name)
		}
		s := in.Settings[run].OrDefault()
		b, _ := in.Benchmarks.Of(s) // nil for a benchmark this build does not have: its shared roles
		cp := ConditionProvenance{Name: c.Name, Run: run, Corpus: explicitCorpus(lib, in.Spec.CorpusOf(c)), Benchmark: s.Benchmark, Models: Models(b, s),
			Method: s.Evolver.MethodName(), Operators: Operators(s), Fingerprints: Fingerprints(in.Records[run]), ServedModels: ServedModels(in.Records[run])}
		if b, err := json.Marshal(s); err == nil {
			cp.SettingsDigest = results.SettingsRef(b)
		}
		p.Conditions = append(p.Conditions, cp)
	}
	return p
}

// explicitCorpus spells a builtin reference with its generator version and
// seed ("builtin:stream" is "builtin:v2:stream@7" today); other references
// are what they name.
func explicitCorpus(lib corpus.Library, ref string) string {
	if !strings.HasPrefix(ref, corpus.BuiltinPrefix) {
		return ref
	}
	b, err := lib.ParseBuiltin(ref)
	if err != nil {
		return ref
	}
	return b.String()
}

// Models are the roles of a run of benchmark b (bench.RunRoles) as "role:
// backend[/model]": what was played, with no endpoint, key variable or key
// file.
func Models(b bench.Benchmark, s settings.Settings) []string {
	var out []string
	for _, name := range bench.RunRoles(b) {
		role, ok := s.Roles[name]
		if !ok {
			continue
		}
		spell := name + ": " + role.Backend
		if role.Model != "" {
			spell += "/" + role.Model
		}
		out = append(out, spell)
	}
	return out
}
