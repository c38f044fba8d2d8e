package runstatus

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/results"
)

func TestWhereQuery(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{in: "S<0.5", want: "Score < 0.5"},
		{in: "s >= 0.25 and stage=3", want: "Score >= 0.25 AND Stage = 3"},
		{in: "condition=angina, kind != heldout", want: `Condition = "angina" AND Kind != "heldout"`},
		{in: "status=running", want: `ExecutionStatus = "Running"`},
		{in: "case='stream-0001'", want: `CaseId = "stream-0001"`},
		{in: "", want: ""},
		{in: "diagnosis~pneumonia and stage=2 and cost>100", want: "Stage = 2"},
		{in: "S<low", err: `S takes a number, got "low"`},
		{in: "score<0.5", err: `unknown name "score"`},
		{in: "case<x", err: "case takes = or !=, got <"},
		{in: "S", err: `"S" is not NAME OP VALUE`},
		{in: "turns~3", err: "turns takes < <= > >= = or !=, got ~"},
		{in: "diagnosis<flu", err: "diagnosis takes ~ (contains), !~, = or !=, got <"},
		{in: "label~CRITICAL", err: "label takes = or !=, got ~"},
		{in: "cost>NaN", err: `cost takes a number, got "NaN"`},
		{in: "status=''", err: "status takes a value, got none"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			f, err := ParseWhere(tc.in)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, f.Query())
		})
	}
}

// rec is a finished episode: diagnosis "Community-acquired pneumonia", 4
// turns, cost 135 USD, one CRITICAL_ERROR action, two retrieved cards.
func rec() results.Record {
	return results.Record{WorkflowID: "r/p1/s2/e3-c7", Run: "r", Kind: "stream", Pass: 1, Stage: 2, Index: 3, CaseID: "c7", Condition: "pneumonia",
		Scores: clinic.Scores{S: 0.5, Cost: 135}, Final: clinic.FinalOutput{Diagnosis: []string{"Community-acquired pneumonia", "sepsis"}},
		Turns: 4, Labels: []string{"HIGH_YIELD", "CRITICAL_ERROR", "NEUTRAL"}, Retrieved: []string{"card-a", "card-b"}}
}

func TestWhereMatch(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"diagnosis~pneumonia", true},
		{"diagnosis~PNEUMONIA", true},
		{"diagnosis~community acquired", true}, // "-" normalises to a space
		{"diagnosis~asthma", false},
		{"diagnosis!~asthma", true},
		{"diagnosis=sepsis", true},
		{"diagnosis=pneumonia", false}, // = is one whole diagnosis
		{"turns=4", true},
		{"turns>4", false},
		{"turns>=4 and turns<=4", true},
		{"cost>100", true},
		{"cost<=135", true},
		{"cost<135", false},
		{"label=critical_error", true},
		{"label=INEFFICIENT", false},
		{"label!=INEFFICIENT", true},
		{"card=card-b", true},
		{"card=card-z", false},
		{"cards>0", true},
		{"cards=2", true},
		{"S=0.5 and stage=2 and pass=1 and index=3", true},
		{"S>0.5", false},
		{"case=c7, condition=pneumonia, kind=stream", true},
		{"status=completed", true},
		{"status=running", false},
		{"", true},
	} {
		t.Run(tc.in, func(t *testing.T) {
			f, err := ParseWhere(tc.in)
			require.NoError(t, err)
			require.Equal(t, tc.want, f.Match(rec()))
		})
	}
}

// TestKeepRecorded: after the visibility query, the episodes whose record
// meets the results store's comparisons stay; one without a record (still
// running) goes; comparisons on search attributes are Temporal's to answer.
func TestKeepRecorded(t *testing.T) {
	r := rec()
	other := rec()
	other.WorkflowID, other.Turns = "r/p1/s2/e4-c8", 9
	eps := []Episode{{WorkflowID: r.WorkflowID}, {WorkflowID: other.WorkflowID}, {WorkflowID: "r/p1/s2/e5-c9", Status: "Running"}}
	recs := []results.Record{r, other}

	f, err := ParseWhere("turns<5 and S>0.9")
	require.NoError(t, err)
	require.True(t, f.Recorded())
	require.Equal(t, []Episode{eps[0]}, f.KeepRecorded(eps, recs), "S>0.9 was the visibility query's to apply")

	f, err = ParseWhere("stage=2")
	require.NoError(t, err)
	require.False(t, f.Recorded())
	require.Equal(t, eps, f.KeepRecorded(eps, recs), "no recorded field: every episode the query listed, running ones too")

	f, err = ParseWhere("cards>0")
	require.NoError(t, err)
	require.Equal(t, eps[:2], f.KeepRecorded(eps, recs))
}
