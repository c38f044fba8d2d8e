package main

//go:generate go run . docs --out ../../docs/cli
