package recorded

import (
	"context"
	"slices"
	"strings"

	"github.com/clinevo/clinevo/results"
)

// RunIDs are the runs the store describes whose IDs start with prefix, for
// shell completion.
func RunIDs(ctx context.Context, store results.RunLog, prefix string) ([]string, error) {
	runs, _, err := store.Runs(ctx)
	var out []string
	for _, r := range runs {
		if strings.HasPrefix(r.Run, prefix) && !slices.Contains(out, r.Run) {
			out = append(out, r.Run)
		}
	}
	return out, err
}

// EpisodeIDs complete an episode ID, for shell completion: the runs that
// start with prefix, with a trailing slash, and once prefix names a run and
// a slash, that run's recorded episodes that start with it (when the store
// records episodes).
func EpisodeIDs(ctx context.Context, store results.RunLog, prefix string) ([]string, error) {
	runs, _, err := store.Runs(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	eps, ok := store.(results.Episodes)
	for _, r := range runs {
		switch {
		case strings.HasPrefix(prefix, r.Run+"/") && ok:
			recs, err := eps.Records(ctx, r.Run)
			if err != nil {
				return out, err
			}
			for _, rec := range recs {
				if strings.HasPrefix(rec.EpisodeID, prefix) {
					out = append(out, rec.EpisodeID)
				}
			}
		case strings.HasPrefix(r.Run, prefix):
			out = append(out, r.Run+"/")
		}
	}
	return out, nil
}
