package sdbench

import (
	"fmt"
	"slices"
	"strings"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus"
	"github.com/clinevo/clinevo/corpus/synth"
)

// The synthetic SDBench corpus. The paper's 304 NEJM clinicopathological
// cases are not public; this corpus has their shape (SDBench): a short abstract
// the encounter starts from, the full record the gatekeeper holds, and the
// final diagnosis. It is built on version 2's cases of the shared condition
// table (synth's toolkit), with the record's normal filler results removed,
// so that most tests a doctor orders are unrecorded and answered by the
// gatekeeper's synthetic results, as in the paper. The held-out split holds
// conditions the stream never shows. Sizes and the split are clinevo's
// choice; generation is deterministic by seed.
const (
	Source      = "clinevo-synth/sd1"
	Stages      = 5
	StreamSize  = Stages * synth.StageSize
	HeldOutSize = 56
	// keptNormals are the normal results a case keeps in its record, beside
	// every abnormal one, so that a recorded result is not always abnormal.
	keptNormals = 2
)

// Splits are the corpus's splits: the stream and the held-out split of
// unseen conditions.
var Splits = []string{"sdbench", "sdbench-heldout"}

// HeldOutConditions are the conditions only the held-out split shows: every
// fifth of the condition table (clinevo's choice).
func HeldOutConditions() []string {
	var out []string
	for i, c := range synth.Conditions() {
		if i%5 == 4 {
			out = append(out, c.Key)
		}
	}
	return out
}

func streamConditions() []string {
	held := HeldOutConditions()
	var out []string
	for _, c := range synth.Conditions() {
		if !slices.Contains(held, c.Key) {
			out = append(out, c.Key)
		}
	}
	return out
}

var _ corpus.Builtins = Benchmark{}

// BuiltinSplits are the synthetic splits, built on generator version 2, and
// the DiagnosisArena splits (arena.go), which no generator version changes,
// so every version names them.
func (Benchmark) BuiltinSplits() map[string][]int {
	var all []int
	for v := synth.V1; v <= synth.Latest; v++ {
		all = append(all, v)
	}
	return map[string][]int{Splits[0]: {synth.V2}, Splits[1]: {synth.V2}, ArenaStream: all, ArenaHeldOutSplit: all}
}

// Builtin generates a synthetic split, or imports a DiagnosisArena one (the
// seed orders nothing: the order is the release's).
func (b Benchmark) Builtin(split string, version int, seed uint64) ([]clinic.Case, error) {
	if vs, ok := b.BuiltinSplits()[split]; !ok || !slices.Contains(vs, version) {
		return nil, fmt.Errorf("the SDBench corpus has splits %s of generator version 2 and %s, %s of any version, not %s of v%d",
			strings.Join(Splits, ", "), ArenaStream, ArenaHeldOutSplit, split, version)
	}
	if split == ArenaStream || split == ArenaHeldOutSplit {
		splits, err := ArenaSplits()
		return splits[split], err
	}
	return Generate(split, seed)
}

// Generate builds one split: "sdbench", StreamSize cases in Stages stages
// cycling through the stream's conditions, or "sdbench-heldout",
// HeldOutSize cases of the held-out conditions.
func Generate(split string, seed uint64) ([]clinic.Case, error) {
	g := synth.NewGenerator(seed)
	conds, n := streamConditions(), StreamSize
	if split == Splits[1] {
		conds, n = HeldOutConditions(), HeldOutSize
	}
	out := make([]clinic.Case, 0, n)
	var order []int
	r := g.Rand("sdbench/order", split)
	for i := 0; i < n; i++ {
		if len(order) == 0 {
			order = r.Perm(len(conds))
		}
		k := conds[order[0]]
		order = order[1:]
		c, err := g.Case(k, split, i+1, "", nil)
		if err != nil {
			return nil, err
		}
		c = Shape(c, g)
		c.ID = fmt.Sprintf("%s-%04d", split, i+1)
		c.Meta.Split = split
		if split == Splits[0] {
			c.Meta.Stage = i/synth.StageSize + 1
		}
		out = append(out, c)
	}
	return out, nil
}

// Shape turns a generated case into SDBench's shape: the record keeps every
// abnormal result and keptNormals normal ones, and the full record is the
// case written out as text.
func Shape(c clinic.Case, g synth.Generator) clinic.Case {
	var normals, kept []clinic.TestValue
	for _, t := range c.Exam.Tests {
		if t.Abnormal {
			kept = append(kept, t)
		} else {
			normals = append(normals, t)
		}
	}
	r := g.Rand("sdbench/normals", c.ID)
	for _, i := range r.Perm(len(normals))[:min(keptNormals, len(normals))] {
		kept = append(kept, normals[i])
	}
	slices.SortFunc(kept, func(a, b clinic.TestValue) int { return strings.Compare(a.Name, b.Name) })
	c.Exam.Tests = kept
	c.Exam.Catalog = nil // SDBench shows no test list
	x, err := c.Exam.Ext.Put(Record{FullCase: FullCase(c), Complete: true})
	if err == nil {
		c.Exam.Ext = x
	}
	c.Provenance = clinic.Provenance{Source: Source, SourceCaseID: c.ID, License: "synthetic (clinevo)"}
	return c
}

// FullCase writes a case's record as the narrative the gatekeeper reads.
func FullCase(c clinic.Case) string {
	var b strings.Builder
	p := c.Patient
	b.WriteString("Patient: " + p.Demographics.Text + "\n")
	b.WriteString("Presentation: " + p.OpeningComplaint + "\n")
	b.WriteString("History:\n")
	for _, f := range p.Facts {
		b.WriteString("- " + f.Text + "\n")
	}
	b.WriteString("Examination:\n")
	for _, f := range c.Exam.Findings {
		b.WriteString("- " + f.System + ": " + f.Text + "\n")
	}
	b.WriteString("Investigations:\n")
	for _, t := range c.Exam.Tests {
		b.WriteString("- " + t.Name + ": " + t.Result + "\n")
	}
	return b.String()
}
