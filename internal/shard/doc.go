// Package shard splits the apps of a review between the jobs of a CI
// matrix (--shard I/N). An app's shard is a pure function of its identity
// (kind, namespace, name) and N, never of its position among the others:
// adding, removing or renaming an app moves that app only, so a shard's
// content and its cached work stay put while the repository grows.
package shard
