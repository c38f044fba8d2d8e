package results_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/results"
)

func TestSourceOf(t *testing.T) {
	recs := []results.Record{{EpisodeID: "a", Number: 1, CaseID: "c1"}, {EpisodeID: "b", Number: 2, CaseID: "c2"}, {EpisodeID: "e", Number: 3, CaseID: "c2"}}
	for _, tc := range []struct {
		name string
		card clinic.Card
		want string
	}{
		{"the episode that wrote it", clinic.Card{CreatedEpisode: 2, SourceCase: "c2"}, "b"},
		{"same case, another episode", clinic.Card{CreatedEpisode: 3, SourceCase: "c2"}, "e"},
		{"no such episode", clinic.Card{CreatedEpisode: 4, SourceCase: "c2"}, ""},
		{"number of another case", clinic.Card{CreatedEpisode: 1, SourceCase: "c2"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := results.SourceOf(recs, tc.card)
			if tc.want == "" {
				require.Nil(t, got)
				return
			}
			require.NotNil(t, got)
			require.Equal(t, tc.want, got.EpisodeID)
		})
	}
}

// TestRecordEpochIsOnlyWrittenWhenPlayed: a record of a run without epochs
// (Epoch 0) writes no epoch key, as records did before epochs; a play of
// an epoch writes it.
func TestRecordEpochIsOnlyWrittenWhenPlayed(t *testing.T) {
	for _, tc := range []struct {
		epoch int
		has   bool
	}{{0, false}, {1, true}, {3, true}} {
		b, err := json.Marshal(results.Record{EpisodeID: "e", Epoch: tc.epoch})
		require.NoError(t, err)
		var keys map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(b, &keys))
		_, ok := keys["epoch"]
		require.Equal(t, tc.has, ok, "epoch %d", tc.epoch)
	}
}
