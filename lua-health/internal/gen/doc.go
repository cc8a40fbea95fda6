// Package gen generates lua-health's health.lua and health.cel.yaml files
// from _templates for every kind of routing.HealthChecked (go generate
// ./lua-health).
package gen
