package analysis

import (
	"slices"
	"sort"
	"strings"

	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/results"
)

// Encounters tells recall from transfer for one condition.
//
// A doctor that reads memory can score well on a case for two different
// reasons. Recall: its memory lineage has met this case's clinical condition,
// or even its very opening complaint, before, and memory hands back what an
// earlier episode wrote about it. Transfer: it meets something its lineage has
// not met and applies what it learned elsewhere. A mean over all episodes mixes
// the two; the split below reports them apart.
//
// The memory lineage of a stream condition is the condition and the stream
// conditions it carries memory from (CarryFrom, recursively); that of a
// held-out condition with memory is the lineage of the stream it reads (From).
// "Met" means played in one of the lineage's stream runs:
//   - a stream episode is "seen before" when its case's clinical condition (the
//     case's condition key) was met in a run the stream carries from, or at a
//     lower Index of its own run, and a "first encounter" otherwise; a stream
//     without memory is split the same way, as the control that shows what
//     repetition alone is worth;
//   - a held-out episode is split twice: by whether its normalised opening
//     complaint (textmatch.Normalize) was the opening of a case played in the
//     lineage, and by whether its clinical condition was. A held-out condition
//     without memory (H0) is split against the lineage of the first condition
//     compared with it in Transfer, which gives each side of H3 a baseline on
//     the same cases.
//
// An episode whose case has no condition key is never "seen" by condition:
// nothing ties it to an earlier case.
type Encounters struct {
	// Lineage names the stream conditions whose episodes count as met, oldest first.
	Lineage []string `json:"lineage"`
	// Condition splits by the case's clinical condition (for a stream: seen
	// before vs first encounter).
	Condition Split `json:"condition"`
	// Opening splits a held-out condition by the case's normalised opening
	// complaint; nil for streams, and where the corpora's openings are not in
	// the Input.
	Opening *Split `json:"opening,omitempty"`
}

// Split is a condition's episodes in two: those whose case had been met in the
// memory lineage and those that had not, each with a seeded bootstrap 95%
// interval of its mean S. An empty side has N = 0, zero means and a zero interval.
type Split struct {
	Seen   StageMean `json:"seen"`
	New    StageMean `json:"new"`
	SeenCI Interval  `json:"seen_ci_s"`
	NewCI  Interval  `json:"new_ci_s"`
}

// TransferSplit is ET(S) = mean of H3 − H0 (MedEvoEval §4) over the paired
// cases whose clinical condition the H3 condition's memory lineage played
// (Seen) and over the rest (New: conditions never met, where memory can only
// transfer), each with a seeded bootstrap 95% interval; N = 0 on an empty side.
type TransferSplit struct {
	Seen ETSide `json:"seen"`
	New  ETSide `json:"new"`
}

// ETSide is one side of a TransferSplit.
type ETSide struct {
	N      int       `json:"n"`
	ETS    float64   `json:"et_s"`
	CI     Interval  `json:"ci_s"`
	Deltas []float64 `json:"-"`
}

func etSide(ds []float64) ETSide {
	return ETSide{N: len(ds), ETS: Mean(ds), CI: BootstrapMean(ds, 2000, Seed), Deltas: ds}
}

// metConditions are the clinical conditions played in the stream runs of a lineage.
func metConditions(in Input, runs map[string]string, lin []string) map[string]bool {
	met := map[string]bool{}
	for _, name := range lin {
		for _, r := range in.Records[runs[name]] {
			if r.Condition != "" {
				met[r.Condition] = true
			}
		}
	}
	return met
}

// transferSplits fills every Transfer's ByCondition against the lineage of
// the stream its H3 condition reads.
func transferSplits(in Input, rep *Report, specs map[string]contract.ConditionSpec, runs map[string]string) {
	for i := range rep.Transfer {
		t := &rep.Transfer[i]
		from := specs[t.Name].From
		if from == "" {
			continue
		}
		met := metConditions(in, runs, lineage(specs, from))
		h3 := in.Records[runs[t.Name]]
		p := pairedMetric(h3, in.Records[runs[t.Baseline]], "S") // by case, over the epoch mean
		cond := map[string]string{}
		for _, r := range h3 {
			cond[r.CaseID] = r.Condition
		}
		var seen, fresh []float64
		for j, d := range p.gains() {
			if met[cond[p.cases[j]]] {
				seen = append(seen, d)
			} else {
				fresh = append(fresh, d)
			}
		}
		t.ByCondition = &TransferSplit{Seen: etSide(seen), New: etSide(fresh)}
	}
}

// encounters fills the Encounters of every stream condition and of every
// held-out condition that reads a stream's memory or is the baseline of a
// Transfer.
func encounters(in Input, rep *Report) {
	specs := map[string]contract.ConditionSpec{}
	for _, c := range in.Spec.Conditions {
		specs[c.Name] = c
	}
	runs := map[string]string{}
	for _, c := range rep.Conditions {
		runs[c.Name] = c.Run
	}
	pairedWith := map[string]string{} // a memoryless held-out condition → the first condition compared with it
	for _, t := range rep.Transfer {
		if _, ok := pairedWith[t.Baseline]; !ok {
			pairedWith[t.Baseline] = t.Name
		}
	}
	for i := range rep.Conditions {
		cr := &rep.Conditions[i]
		c := specs[cr.Name]
		switch c.Kind {
		case contract.KindStream:
			cr.Encounters = streamEncounters(in, specs, runs, c, cr.Run, cr.Episodes)
		case contract.KindHeldOut:
			from := c.From
			if from == "" {
				from = specs[pairedWith[c.Name]].From
			}
			if from != "" {
				cr.Encounters = heldOutEncounters(in, specs, runs, lineage(specs, from), c, cr.Run, cr.Episodes)
			}
		}
	}
	transferSplits(in, rep, specs, runs)
}

// lineage lists a stream condition and those it carries memory from,
// recursively, oldest first.
func lineage(specs map[string]contract.ConditionSpec, name string) []string {
	var out []string
	for name != "" && !slices.Contains(out, name) { // a validated spec has no cycle; a stored one is not trusted to
		out = append(out, name)
		name = specs[name].Dependency()
	}
	slices.Reverse(out)
	return out
}

// streamEncounters splits a stream's episodes, in Index order, by whether their
// condition was met earlier in the lineage.
func streamEncounters(in Input, specs map[string]contract.ConditionSpec, runs map[string]string, c contract.ConditionSpec, run string, recs []results.Record) *Encounters {
	lin := lineage(specs, c.Name)
	met := map[string]bool{}
	for _, name := range lin[:len(lin)-1] {
		for _, r := range in.Records[runs[name]] {
			met[r.Condition] = true
		}
	}
	ordered := slices.Clone(recs)
	sort.SliceStable(ordered, func(i, j int) bool { return ordered[i].Index < ordered[j].Index })
	var seen, fresh []results.Record
	for _, r := range ordered {
		if r.Condition != "" && met[r.Condition] {
			seen = append(seen, r)
		} else {
			fresh = append(fresh, r)
		}
		met[r.Condition] = true
	}
	return &Encounters{Lineage: lin, Condition: split(run, seen, fresh)}
}

// heldOutEncounters splits a held-out condition's episodes against the cases
// played in the streams of a lineage.
func heldOutEncounters(in Input, specs map[string]contract.ConditionSpec, runs map[string]string, lin []string, c contract.ConditionSpec, run string, recs []results.Record) *Encounters {
	conds, openings := metConditions(in, runs, lin), map[string]bool{}
	own, haveOpenings := in.Openings[in.Spec.CorpusOf(c)]
	for _, name := range lin {
		played, ok := in.Openings[in.Spec.CorpusOf(specs[name])]
		haveOpenings = haveOpenings && ok
		for _, r := range in.Records[runs[name]] {
			if o := played[r.CaseID]; o != "" {
				openings[o] = true
			}
		}
	}
	var condSeen, condNew, openSeen, openNew []results.Record
	for _, r := range recs {
		if conds[r.Condition] {
			condSeen = append(condSeen, r)
		} else {
			condNew = append(condNew, r)
		}
		if o := own[r.CaseID]; o != "" && openings[o] {
			openSeen = append(openSeen, r)
		} else {
			openNew = append(openNew, r)
		}
	}
	e := &Encounters{Lineage: lin, Condition: split(run, condSeen, condNew)}
	if haveOpenings {
		o := split(run, openSeen, openNew)
		e.Opening = &o
	}
	return e
}

func split(run string, seen, fresh []results.Record) Split {
	side := func(recs []results.Record) StageMean {
		if len(recs) == 0 {
			return StageMean{Run: run}
		}
		return Overall(recs)
	}
	ci := func(recs []results.Record) Interval { return BootstrapMean(caseValues(recs, "S"), 1000, Seed) }
	return Split{Seen: side(seen), New: side(fresh), SeenCI: ci(seen), NewCI: ci(fresh)}
}

// encounterRow is one split of one condition, for the page and encounters.csv.
type encounterRow struct {
	Condition, Lineage string
	By                 string // "opening" or "condition"
	Split
	NoU bool // the condition's profile defines no U
}

// encounterRows lists every condition's splits, a held-out condition's
// opening split before its condition split.
func encounterRows(rep Report) []encounterRow {
	var out []encounterRow
	for _, c := range rep.Conditions {
		e := c.Encounters
		if e == nil {
			continue
		}
		lin := strings.Join(e.Lineage, " ")
		if e.Opening != nil {
			out = append(out, encounterRow{Condition: c.Name, Lineage: lin, By: "opening", Split: *e.Opening, NoU: !c.DefinesU()})
		}
		out = append(out, encounterRow{Condition: c.Name, Lineage: lin, By: "condition", Split: e.Condition, NoU: !c.DefinesU()})
	}
	return out
}
