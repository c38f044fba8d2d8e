package sdbench

import (
	"bytes"
	"fmt"
	"strconv"

	"github.com/clinevo/clinevo/benchmarks/medinquire"
	"github.com/clinevo/clinevo/clinic"
)

// SDBench on published case reports. The paper's 304 NEJM clinicopathological
// conference cases are not public (SDBench §2). DiagnosisArena's 915
// released cases (Zhu et al., arXiv 2505.14107; shipped with Med-Inquire,
// benchmarks/medinquire/data/diagnosisarena) are the closest public stand-in:
// like the CPCs they are diagnostically hard single-patient case reports from
// leading journals (NEJM among them), each with a history, an examination,
// investigations and one final diagnosis confirmed by the work-up. They are
// read by Med-Inquire's importer (its leak guard included) and put into
// SDBench's shape: the opening sentence is the abstract, the guarded record
// written out is the full case, no test list is shown.
//
// The paper holds out its 56 most recent cases (2024–2025) of 304 as a hidden
// test set, a control for contamination and memorisation (SDBench §3, §4).
// The release gives no publication dates; its ids are the order it was
// published in, which stands in for publication order (an assumption the
// release cannot confirm). The held-out split is the last ArenaHeldOut ids.
const (
	// ArenaStream and ArenaHeldOutSplit are the two splits' names
	// (builtin:sdbench-arena, builtin:sdbench-arena-heldout).
	ArenaStream       = "sdbench-arena"
	ArenaHeldOutSplit = "sdbench-arena-heldout"
	// arenaCases is the release's size.
	arenaCases = 915
	// ArenaHeldOut is the held-out split's size: the paper's share, 56 of
	// 304 (SDBench §3), of the release's 915, rounded: 915 × 56 / 304 =
	// 168.6, so 169.
	ArenaHeldOut = (arenaCases*56 + 304/2) / 304
)

// ArenaSplits are the release's cases in SDBench's shape, by split: the
// stream in the release's order, then the held-out split of its last
// ArenaHeldOut cases.
func ArenaSplits() (map[string][]clinic.Case, error) {
	cases, _, err := medinquire.ImportArena(bytes.NewReader(medinquire.ArenaRelease), medinquire.ArenaFile, false)
	if err != nil {
		return nil, err
	}
	if len(cases) != arenaCases {
		return nil, fmt.Errorf("%s: %d cases, want the release's %d", medinquire.ArenaFile, len(cases), arenaCases)
	}
	cut := len(cases) - ArenaHeldOut
	out := map[string][]clinic.Case{}
	for i, c := range cases {
		split := ArenaStream
		if i >= cut {
			split = ArenaHeldOutSplit
		}
		sc, err := arenaShape(c, split)
		if err != nil {
			return nil, fmt.Errorf("%s: row %d: %w", medinquire.ArenaFile, i+1, err)
		}
		out[split] = append(out[split], sc)
	}
	return out, nil
}

// arenaShape puts an imported DiagnosisArena case into SDBench's shape. The
// full case is the record after the leak guard (FullCase): a history or
// examination sentence that names the diagnosis is not in it, so a model
// gatekeeper cannot repeat it; a test result still may, as the confirmatory
// test does. The record makes no promise of holding every abnormal finding
// (Record.Complete false), so the built-in gatekeeper never calls an
// unrecorded test normal.
func arenaShape(c clinic.Case, split string) (clinic.Case, error) {
	n, err := strconv.Atoi(c.Provenance.SourceCaseID)
	if err != nil {
		return clinic.Case{}, fmt.Errorf("provenance.source_case_id: want the release's id, got %q", c.Provenance.SourceCaseID)
	}
	c.ID = fmt.Sprintf("%s-%04d", ArenaStream, n)
	c.Meta.Split = split
	c.Exam.Catalog = nil        // SDBench shows no test list
	c.Manager.Distractors = nil // the release's multiple-choice options: SDBench asks for a free-text diagnosis
	x, err := c.Exam.Ext.Put(Record{FullCase: FullCase(c)})
	if err != nil {
		return clinic.Case{}, err
	}
	c.Exam.Ext = x
	return c, (Benchmark{}).ValidateCase(&c)
}
