package main

import (
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/results"
)

// completeRuns completes a RUN argument with the runs the results store
// records (shell completion; no Temporal needed).
func (a *app) completeRuns(cmd *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []string
	_ = a.completing(cmd, func(store results.RunLog) error {
		runs, _, err := store.Runs(cmd.Context())
		for _, r := range runs {
			if strings.HasPrefix(r.Run, prefix) && !slices.Contains(out, r.Run) {
				out = append(out, r.Run)
			}
		}
		return err
	})
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completing loads the configuration (completion skips the root's
// PersistentPreRunE) and runs fn with the results store opened for reading;
// completion offers nothing when that fails.
func (a *app) completing(cmd *cobra.Command, fn func(results.RunLog) error) error {
	if err := a.load(cmd); err != nil {
		return err
	}
	return a.withLookup(cmd.Context(), func(store results.RunLog) error {
		if store == nil {
			return engine.ErrNoData
		}
		return fn(store)
	})
}

// completeEpisodes completes an EPISODE_ID argument: first the runs (with
// a trailing /), then the episode IDs of the run the prefix names.
func (a *app) completeEpisodes(cmd *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []string
	_ = a.completing(cmd, func(store results.RunLog) error {
		runs, _, err := store.Runs(cmd.Context())
		if err != nil {
			return err
		}
		eps, ok := store.(results.Episodes)
		for _, r := range runs {
			switch {
			case strings.HasPrefix(prefix, r.Run+"/") && ok:
				recs, err := eps.Records(cmd.Context(), r.Run)
				if err != nil {
					return err
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
		return nil
	})
	return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
}
