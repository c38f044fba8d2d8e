package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/recorded"
	"github.com/clinevo/clinevo/results"
)

// completeRuns completes a RUN argument with the runs the results store
// records (shell completion; no Temporal needed).
func (a *app) completeRuns(cmd *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
	return a.complete(cmd, args, prefix, recorded.RunIDs), cobra.ShellCompDirectiveNoFileComp
}

// completeEpisodes completes an EPISODE_ID argument: first the runs (with
// a trailing /), then the episode IDs of the run the prefix names.
func (a *app) completeEpisodes(cmd *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
	return a.complete(cmd, args, prefix, recorded.EpisodeIDs), cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
}

// complete loads the configuration (completion skips the root's
// PersistentPreRunE) and lists what ids finds in the results store, opened
// for reading, for the first argument; completion offers what it found
// before anything failed.
func (a *app) complete(cmd *cobra.Command, args []string, prefix string,
	ids func(ctx context.Context, store results.RunLog, prefix string) ([]string, error)) []string {
	if len(args) > 0 || a.load(cmd) != nil {
		return nil
	}
	var out []string
	_ = a.withLookup(cmd.Context(), func(store results.Store) error { // nothing to offer is the answer to any error
		if store == nil {
			return engine.ErrNoData
		}
		var err error
		out, err = ids(cmd.Context(), store, prefix)
		return err
	})
	return out
}
