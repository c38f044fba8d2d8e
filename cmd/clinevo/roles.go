package main

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/clinevo/clinevo/llm"
)

func (a *app) rolesCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "roles", Short: "Check and describe the model roles"}
	var asJSON bool
	check := &cobra.Command{
		Use:   "check [SPEC]",
		Short: "Preflight every model role (of every condition of SPEC, else of the configuration): endpoint, key, model, reply format, latency",
		Long: "Reaches each model role's endpoint, authenticates, looks its model up and sends one tiny request in the role's\n" +
			"reply format (JSON, tags or function calls), read by the role's parser. Prints no prompt and no key.\n" +
			"Exits with an error when a role fails.",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := a.set.Of(a.cfg.Settings)
			if err != nil {
				return err
			}
			conds := []llm.Condition{{Name: "config", Settings: a.cfg.Settings, Bench: b}}
			if len(args) == 1 {
				spec, err := a.loadExperiment(args[0])
				if err != nil {
					return err
				}
				if conds, err = llm.ConditionsOf(spec, a.set); err != nil {
					return err
				}
			}
			return printRoleChecks(cmd, conds, asJSON)
		},
	}
	check.Flags().BoolVar(&asJSON, "json", false, "print the checks as JSON")
	cmd.AddCommand(check)
	return cmd
}

// printRoleChecks checks the roles and prints the verdicts; a failed role is
// the command's error.
func printRoleChecks(cmd *cobra.Command, conds []llm.Condition, asJSON bool) error {
	checks := llm.CheckConditions(cmd.Context(), conds)
	if err := output(cmd, asJSON, checks, func(w io.Writer) error { return llm.WriteChecks(w, checks) }); err != nil {
		return err
	}
	return llm.ChecksError(checks)
}
