package analysis_test

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/analysis"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/corpus"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/results/sqlite"
	"github.com/clinevo/clinevo/textmatch"
)

// encounterFixture is a small experiment whose recall/transfer split is
// worked out by hand in TestEncounters:
//
//	E0  memory disabled: asthma (1), asthma (2)
//	E1  memory from empty: asthma (1), dvt (2), asthma (3), gout (4), stored out of Index order
//	E2  carries E1: gout (1), asthma (2)
//	H0  no memory, H3 E2's memory, HX E0's: held-out cases
//	    h1 dvt "swollen calf" (the opening of E1's case s2), h2 eczema "new rash",
//	    h3 asthma "breathless when running"
func encounterFixture() analysis.Input {
	spec := contract.ExperimentSpec{Name: "t", Corpus: "builtin:stream", HeldOut: "builtin:heldout", Conditions: []contract.ConditionSpec{
		{Name: "E0", Kind: contract.KindStream, Memory: contract.MemoryDisabled},
		{Name: "E1", Kind: contract.KindStream, Memory: contract.MemoryEmpty},
		{Name: "E2", Kind: contract.KindStream, Memory: contract.MemoryCarry, CarryFrom: "E1"},
		{Name: "H0", Kind: contract.KindHeldOut},
		{Name: "H3", Kind: contract.KindHeldOut, From: "E2"},
		{Name: "HX", Kind: contract.KindHeldOut, From: "E0"}}}
	in := analysis.Input{Benchmarks: testSet(), Spec: spec, Records: map[string][]results.Record{}, Openings: map[string]map[string]string{
		"builtin:stream":  {"s1": "cough at night", "s2": "swollen calf", "s3": "wheeze", "s4": "painful toe", "s5": "hot swollen joint", "s6": "night cough"},
		"builtin:heldout": {"h1": "swollen calf", "h2": "new rash", "h3": "breathless when running"}}}
	add := func(cond string, idx int, caseID, condition string, s float64, strict bool) {
		run := "t-" + cond
		id := contract.EpisodeWorkflowID(run, 1, 1, idx, caseID)
		in.Records[run] = append(in.Records[run], results.Record{EpisodeID: id, WorkflowID: id, Run: run, Stage: 1, Index: idx, CaseID: caseID,
			Condition: condition, Scores: clinic.Scores{S: s, Strict: strict, U: s - 0.1}})
	}
	add("E0", 1, "s1", "asthma", 0.1, false)
	add("E0", 2, "s3", "asthma", 0.3, false)
	// Out of Index order: read in this order, episode 3 (asthma) would count as the first encounter.
	add("E1", 3, "s3", "asthma", 0.6, true)
	add("E1", 1, "s1", "asthma", 0.2, false)
	add("E1", 2, "s2", "dvt", 0.4, false)
	add("E1", 4, "s4", "gout", 0.8, true)
	add("E2", 1, "s5", "gout", 0.9, true)
	add("E2", 2, "s6", "asthma", 0.5, false)
	for _, h := range []struct {
		cond string
		s    [3]float64
	}{{"H0", [3]float64{0.5, 0.2, 0.4}}, {"H3", [3]float64{0.9, 0.3, 0.7}}} {
		add(h.cond, 1, "h1", "dvt", h.s[0], h.s[0] > 0.6)
		add(h.cond, 2, "h2", "eczema", h.s[1], false)
		add(h.cond, 3, "h3", "asthma", h.s[2], h.s[2] > 0.6)
	}
	add("HX", 1, "h2", "eczema", 0.25, false)
	for _, c := range spec.Conditions {
		in.Result.Conditions = append(in.Result.Conditions, contract.ConditionResult{Name: c.Name, Kind: c.Kind, Run: "t-" + c.Name})
	}
	return in
}

type side struct {
	n         int
	s, strict float64
}

func requireSide(t *testing.T, want side, got analysis.StageMean) {
	t.Helper()
	require.Equal(t, want.n, got.N)
	require.InDelta(t, want.s, got.S, 1e-9)
	require.InDelta(t, want.strict, got.Strict, 1e-9)
	if want.n > 0 {
		require.InDelta(t, want.s-0.1, got.U, 1e-9, "U = S − 0.1 on every record")
	}
}

func TestEncounters(t *testing.T) {
	rep := analysis.Build(encounterFixture())
	by := map[string]*analysis.Encounters{}
	for _, c := range rep.Conditions {
		by[c.Name] = c.Encounters
	}
	tests := []struct {
		name                    string
		lineage                 []string
		condSeen, condNew       side
		opening                 bool
		openingSeen, openingNew side
	}{
		// E0 alone: episode 1 asthma is new, episode 2 asthma seen before.
		{name: "E0", lineage: []string{"E0"}, condSeen: side{1, 0.3, 0}, condNew: side{1, 0.1, 0}},
		// E1 in Index order: asthma (1), dvt (2), gout (4) first encounters, mean S (0.2 + 0.4 + 0.8)/3, strict 1/3;
		// asthma (3) seen before.
		{name: "E1", lineage: []string{"E1"}, condSeen: side{1, 0.6, 1}, condNew: side{3, 1.4 / 3, 1.0 / 3}},
		// E2 carries E1, which met gout and asthma: both of E2's episodes are seen, the first one included;
		// the first-encounter side is empty.
		{name: "E2", lineage: []string{"E1", "E2"}, condSeen: side{2, 0.7, 0.5}, condNew: side{0, 0, 0}},
		// H3 against E1 and E2 (conditions asthma, dvt, gout; openings s1..s6): h1's opening is s2's,
		// h1 (dvt) and h3 (asthma) have a condition the lineage met, h2 (eczema) has neither.
		{name: "H3", lineage: []string{"E1", "E2"}, opening: true,
			openingSeen: side{1, 0.9, 1}, openingNew: side{2, 0.5, 0.5},
			condSeen: side{2, 0.8, 1}, condNew: side{1, 0.3, 0}},
		// H0 has no memory: split against H3's lineage, the condition Transfer compares it with.
		{name: "H0", lineage: []string{"E1", "E2"}, opening: true,
			openingSeen: side{1, 0.5, 0}, openingNew: side{2, 0.3, 0},
			condSeen: side{2, 0.45, 0}, condNew: side{1, 0.2, 0}},
		// HX reads E0 (asthma only): its one eczema case is new both ways; the seen sides are empty.
		{name: "HX", lineage: []string{"E0"}, opening: true,
			openingSeen: side{0, 0, 0}, openingNew: side{1, 0.25, 0},
			condSeen: side{0, 0, 0}, condNew: side{1, 0.25, 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := by[tc.name]
			require.NotNil(t, e)
			require.Equal(t, tc.lineage, e.Lineage)
			requireSide(t, tc.condSeen, e.Condition.Seen)
			requireSide(t, tc.condNew, e.Condition.New)
			if !tc.opening {
				require.Nil(t, e.Opening, "streams are split by condition only")
				return
			}
			require.NotNil(t, e.Opening)
			requireSide(t, tc.openingSeen, e.Opening.Seen)
			requireSide(t, tc.openingNew, e.Opening.New)
		})
	}
}

// TestEncountersWithoutOpenings checks that a held-out condition is split by
// condition alone when the Input has no openings, and that a memoryless
// held-out condition no Transfer compares is not split.
func TestEncountersWithoutOpenings(t *testing.T) {
	in := encounterFixture()
	in.Openings = nil
	in.Spec.Conditions = append(in.Spec.Conditions, contract.ConditionSpec{Name: "M", Kind: contract.KindHeldOut, Corpus: "builtin:cross"})
	in.Result.Conditions = append(in.Result.Conditions, contract.ConditionResult{Name: "M", Kind: contract.KindHeldOut, Run: "t-M"})
	rep := analysis.Build(in)
	for _, c := range rep.Conditions {
		switch c.Name {
		case "H3":
			require.Nil(t, c.Encounters.Opening)
			require.Equal(t, 2, c.Encounters.Condition.Seen.N)
		case "M":
			require.Nil(t, c.Encounters, "no memory and no Transfer: nothing to split against")
		}
	}
}

// TestEncountersJSONAndCSV checks the report.json shape (an empty side is an
// object with n 0 and numbers, not omitted) and encounters.csv.
func TestEncountersJSONAndCSV(t *testing.T) {
	dir := t.TempDir()
	rep := analysis.Build(encounterFixture())
	require.NoError(t, analysis.Write(dir, rep, func(id string) (clinic.Trace, error) { return clinic.Trace{EpisodeID: id}, nil }))
	b, err := os.ReadFile(filepath.Join(dir, "report.json"))
	require.NoError(t, err)
	var doc struct {
		Conditions []struct {
			Name       string                     `json:"name"`
			Encounters map[string]json.RawMessage `json:"encounters"`
		} `json:"conditions"`
	}
	require.NoError(t, json.Unmarshal(b, &doc))
	enc := map[string]map[string]json.RawMessage{}
	for _, c := range doc.Conditions {
		enc[c.Name] = c.Encounters
	}
	require.NotContains(t, enc["E2"], "opening", "a stream has no opening split")
	var e2 map[string]map[string]any
	require.NoError(t, json.Unmarshal(enc["E2"]["condition"], &e2))
	require.Equal(t, map[string]any{"n": 0.0, "s": 0.0, "strict_accuracy": 0.0, "u": 0.0}, pick(e2["new"], "n", "s", "strict_accuracy", "u"))
	require.Equal(t, map[string]any{"n": 2.0, "s": 0.7, "strict_accuracy": 0.5}, pick(e2["seen"], "n", "s", "strict_accuracy"))
	var lineage []string
	require.NoError(t, json.Unmarshal(enc["H3"]["lineage"], &lineage))
	require.Equal(t, []string{"E1", "E2"}, lineage)
	var h3 map[string]map[string]any
	require.NoError(t, json.Unmarshal(enc["H3"]["opening"], &h3))
	require.Equal(t, 1.0, h3["seen"]["n"])
	require.Equal(t, 2.0, h3["new"]["n"])

	f, err := os.Open(filepath.Join(dir, "encounters.csv"))
	require.NoError(t, err)
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	require.NoError(t, err)
	require.Equal(t, []string{"condition", "lineage", "split_by", "side", "n", "s", "strict_accuracy", "u", "ci_low_s", "ci_high_s"}, rows[0])
	require.Contains(t, rows, []string{"E2", "E1 E2", "condition", "new", "0", "0.0000", "0.0000", "0.0000", "", ""}, "an empty side has no interval")
	require.Contains(t, rows, []string{"H3", "E1 E2", "opening", "seen", "1", "0.9000", "1.0000", "0.8000", "0.9000", "0.9000"})
	// Streams E0, E1, E2 one split each, held-out H0, H3, HX two each, two sides per split, and the header.
	require.Len(t, rows, 1+2*(3+2*3))
	page, err := os.ReadFile(filepath.Join(dir, "index.html"))
	require.NoError(t, err)
	require.Contains(t, string(page), "<h2>Recall and transfer</h2>")
	// E2's seen side: S 0.9 and 0.5; a bootstrap of two values spans both.
	require.Contains(t, string(page), "<tr><td>E2</td><td>E1 E2</td><td>condition</td><td>2</td><td>0.700</td><td>[0.500, 0.900]</td><td>0.500</td><td>0.600</td><td>0</td><td>–</td><td>–</td>")
	require.Contains(t, string(page), "<tr><td>H3</td><td>H0</td><td>2</td><td>0.350</td><td>[0.300, 0.400]</td><td>1</td><td>0.100</td><td>[0.100, 0.100]</td></tr>")
	tf, err := os.ReadFile(filepath.Join(dir, "transfer.csv"))
	require.NoError(t, err)
	require.Contains(t, string(tf), ",2,0.3500,0.3000,0.4000,1,0.1000,0.1000,0.1000\n")
}

// TestTransferByCondition splits ET(S) of H3 against H0 by whether E1 and
// E2 (H3's lineage) played the case's condition: h1 dvt (E1) and h3 asthma
// are seen, deltas 0.9 − 0.5 = 0.4 and 0.7 − 0.4 = 0.3, ET 0.35; h2 eczema
// is unseen, delta 0.3 − 0.2 = 0.1.
func TestTransferByCondition(t *testing.T) {
	rep := analysis.Build(encounterFixture())
	require.Len(t, rep.Transfer, 2)
	for _, tr := range rep.Transfer {
		switch tr.Name {
		case "H3":
			bc := tr.ByCondition
			require.NotNil(t, bc)
			require.Equal(t, 2, bc.Seen.N)
			require.InDelta(t, 0.35, bc.Seen.ETS, 1e-9)
			require.InDelta(t, 0.3, bc.Seen.CI.Low, 1e-9)
			require.InDelta(t, 0.4, bc.Seen.CI.High, 1e-9)
			require.Equal(t, 1, bc.New.N)
			require.InDelta(t, 0.1, bc.New.ETS, 1e-9)
		case "HX":
			// E0 met asthma only; HX's one case (eczema) pairs with H0's h2: unseen, 0.25 − 0.2.
			require.Zero(t, tr.ByCondition.Seen.N)
			require.Equal(t, 1, tr.ByCondition.New.N)
			require.InDelta(t, 0.05, tr.ByCondition.New.ETS, 1e-9)
		}
	}
}

func pick(m map[string]any, keys ...string) map[string]any {
	out := map[string]any{}
	for _, k := range keys {
		out[k] = m[k]
	}
	return out
}

// TestLoadOpenings loads an experiment from a results store: the openings of
// its corpora are read and normalised, and a record whose case its corpus does
// not hold is an error naming the case and the corpus.
func TestLoadOpenings(t *testing.T) {
	ctx := context.Background()
	stream, err := corpus.Library{}.Load("builtin:stream@7")
	require.NoError(t, err)
	spec := contract.ExperimentSpec{Name: "t", Corpus: "builtin:stream@7", HeldOut: "builtin:heldout@7", StageSize: 1, Conditions: []contract.ConditionSpec{
		{Name: "E1", Kind: contract.KindStream}, {Name: "H0", Kind: contract.KindHeldOut}}}
	result := contract.ExperimentResult{Name: "t", Conditions: []contract.ConditionResult{
		{Name: "E1", Kind: contract.KindStream, Run: "t-E1"}, {Name: "H0", Kind: contract.KindHeldOut, Run: "t-H0"}}}
	open := func(t *testing.T, streamCase string) results.Store {
		store, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "results.db"))
		require.NoError(t, err)
		t.Cleanup(func() { store.Close() })
		sb, err := json.Marshal(spec)
		require.NoError(t, err)
		require.NoError(t, store.PutRun(ctx, results.Run{Run: "t", Kind: "experiment", Spec: sb}))
		rb, err := json.Marshal(result)
		require.NoError(t, err)
		require.NoError(t, store.CompleteRun(ctx, "t", "experiment", rb))
		require.NoError(t, store.PutRecord(ctx, results.Record{EpisodeID: "e1", Run: "t-E1", Index: 1, CaseID: streamCase}, clinic.Trace{EpisodeID: "e1"}))
		require.NoError(t, store.PutRecord(ctx, results.Record{EpisodeID: "h1", Run: "t-H0", Index: 1, CaseID: "heldout-0001"}, clinic.Trace{EpisodeID: "h1"}))
		return store
	}
	t.Run("openings", func(t *testing.T) {
		first := stream.Cases[0]
		in, err := analysis.Load(ctx, open(t, first.ID), testSet(), "t")
		require.NoError(t, err)
		require.Len(t, in.Openings, 2)
		require.Len(t, in.Openings["builtin:stream@7"], len(stream.Cases))
		got := in.Openings["builtin:stream@7"][first.ID]
		require.NotEmpty(t, got)
		require.Equal(t, textmatch.Normalize(first.Patient.OpeningComplaint), got)
		require.NotEqual(t, first.Patient.OpeningComplaint, got, "stored normalised")
		require.NotEmpty(t, in.Openings["builtin:heldout@7"]["heldout-0001"])
	})
	t.Run("a case the corpus does not hold", func(t *testing.T) {
		_, err := analysis.Load(ctx, open(t, "stream-9999"), testSet(), "t")
		require.ErrorContains(t, err, `case "stream-9999"`)
		require.ErrorContains(t, err, "builtin:stream@7")
		require.ErrorContains(t, err, "condition E1")
	})
}
