-- routeguard health check for gateway.networking.k8s.io/TLSRoute (Argo CD resource
-- customization). Generated from lua-health/_templates/route.lua; edit the template.
--
-- Standard conditions: for every entry of status.parents (one per parent and
-- controller), Accepted and ResolvedRefs must be True for the object's current generation;
-- Programmed, which some implementations report, must be True when reported (not True is
-- Progressing, as in Argo CD's own check). A condition whose observedGeneration is older than
-- metadata.generation does not count. An entry whose Accepted is stale is left
-- aside while another entry is current (its controller may never update it); with no current
-- entry the object waits.
-- Malformed status (not an object, lists that are not lists) is Degraded with a message.
--
-- Time: when no controller has reported status
-- (status absent, no status.parents, or a spec.parentRefs entry without status),
-- the check waits WAIT_SECONDS after metadata.creationTimestamp (Progressing) and then
-- reports Degraded, because something is probably missing. The Flux CEL twin
-- (health.cel.yaml) has no clock and stays InProgress instead (and cannot evaluate an
-- object without status at all); Flux's own timeout ends the wait there.
local WAIT_SECONDS = 300
-- Argo CD's VM has no global os without open libraries; require returns its safe os
-- (time and date only).
local os = require("os")
local KIND = "TLSRoute"
local SPEC_REFS = "parentRefs"
local NEED_RESOLVED = true
local SKIP_STALE_ENTRIES = true

local hs = {}

local function isList(v)
  return type(v) == "table" and (#v > 0 or next(v) == nil)
end

local function isMap(v)
  return type(v) == "table" and #v == 0
end

local function str(v, default)
  if type(v) == "string" and v ~= "" then
    return v
  end
  if type(v) == "number" then
    return tostring(v)
  end
  return default
end

local meta = obj.metadata
if type(meta) ~= "table" then
  meta = {}
end
local generation = meta.generation
local namespace = str(meta.namespace, "")

local function refLabel(ref)
  if not isMap(ref) then
    return "an unnamed parent"
  end
  local ns = str(ref.namespace, namespace)
  local label = str(ref.kind, "Gateway") .. " "
  if ns ~= "" then
    label = label .. ns .. "/"
  end
  label = label .. str(ref.name, "(no name)")
  if str(ref.sectionName, nil) ~= nil then
    label = label .. " section " .. str(ref.sectionName, "")
  end
  if str(ref.port, nil) ~= nil then
    label = label .. " port " .. str(ref.port, "")
  end
  return label
end

-- refKey identifies a parentRef. Without metadata.namespace (a manifest rather than an object
-- from the API server) a parentRef's namespace cannot be resolved, so it is left out.
local function refKey(ref)
  if not isMap(ref) then
    return ""
  end
  local ns = ""
  if namespace ~= "" then
    ns = str(ref.namespace, namespace)
  end
  return ns .. "/" .. str(ref.name, "") .. "#" .. str(ref.sectionName, "") .. ":" .. str(ref.port, "")
end

-- olderThanWait compares RFC 3339 UTC strings, which sort like the times they name:
-- the safe os library has os.time and os.date but Argo CD loads no string library.
local function olderThanWait()
  local created = meta.creationTimestamp
  if type(created) ~= "string" then
    return nil
  end
  local nowFields = os.date("!*t")
  local cutoff = os.date("%Y-%m-%dT%H:%M:%SZ", os.time(nowFields) - WAIT_SECONDS)
  return created < cutoff
end

local function noStatusVerdict(what)
  local old = olderThanWait()
  if old == nil then
    return "Progressing", "waiting for a controller to report status for " .. what .. " (no creationTimestamp, so the " .. (WAIT_SECONDS / 60) .. "-minute wait cannot be measured)"
  end
  if old then
    return "Degraded", "no controller has reported status for " .. what .. " " .. (WAIT_SECONDS / 60) .. " minutes after the " .. KIND .. " was created: probably no Gateway API controller handles it, or the parentRef does not match any Gateway (check name, namespace, sectionName and port)"
  end
  return "Progressing", "waiting for a controller to report status for " .. what
end

-- condition returns the first condition of a type when it counts for the current generation, or
-- nil, a reason it does not and whether that is because it is stale.
local function condition(conds, condType)
  local found = nil
  for _, c in ipairs(conds) do
    if found == nil and isMap(c) and c.type == condType then
      found = c
    end
  end
  if found == nil then
    return nil, condType .. " not reported", false
  end
  local observed = tonumber(found.observedGeneration)
  if observed ~= nil and type(generation) == "number" and observed < generation then
    return nil, condType .. " was reported for generation " .. tostring(observed) .. ", the " .. KIND .. " is at generation " .. tostring(generation), true
  end
  return found, nil, false
end

local function describe(label, c)
  local text = label .. ": " .. c.type .. "=" .. str(c.status, "Unknown") .. " (" .. str(c.reason, "no reason") .. ")"
  if str(c.message, nil) ~= nil then
    text = text .. ": " .. str(c.message, "")
  end
  return text
end

local status = obj.status
if status == nil then
  hs.status, hs.message = noStatusVerdict("this " .. KIND)
  return hs
end
if not isMap(status) then
  hs.status = "Degraded"
  hs.message = KIND .. " status is malformed: expected an object, got " .. (isList(status) and "a list" or type(status))
  return hs
end
local entries = status.parents
if entries ~= nil and not isList(entries) then
  hs.status = "Degraded"
  hs.message = KIND .. " status is malformed: status.parents is not a list"
  return hs
end
if entries == nil or #entries == 0 then
  hs.status, hs.message = noStatusVerdict("this " .. KIND)
  return hs
end

local failed = {}
local pending = {}
local ready = {}
local stale = {}
local reported = {}
for i, entry in ipairs(entries) do
  if not isMap(entry) then
    table.insert(failed, KIND .. " status is malformed: status.parents[" .. (i - 1) .. "] is not an object")
  else
    local label = refLabel(entry.parentRef)
    reported[refKey(entry.parentRef)] = true
    local conds = entry.conditions
    if conds == nil then
      conds = {}
    end
    if not isList(conds) then
      table.insert(failed, label .. ": conditions is not a list")
    else
      local accepted, whyA, acceptedStale = condition(conds, "Accepted")
      local resolved, whyR = condition(conds, "ResolvedRefs")
      local programmed = condition(conds, "Programmed")
      local bad = false
      for _, c in ipairs({ accepted, resolved }) do
        if c ~= nil and c.status == "False" and c.reason ~= "Pending" then
          table.insert(failed, describe(label, c))
          bad = true
        end
      end
      if not bad then
        if acceptedStale and SKIP_STALE_ENTRIES then
          table.insert(stale, "waiting for " .. label .. ": " .. whyA)
        elseif accepted == nil then
          table.insert(pending, "waiting for " .. label .. ": " .. whyA)
        elseif accepted.status ~= "True" then
          table.insert(pending, "waiting for " .. describe(label, accepted))
        elseif NEED_RESOLVED and resolved == nil then
          table.insert(pending, "waiting for " .. label .. ": " .. whyR)
        elseif resolved ~= nil and resolved.status ~= "True" then
          table.insert(pending, "waiting for " .. describe(label, resolved))
        elseif programmed ~= nil and programmed.status ~= "True" then
          table.insert(pending, "waiting for " .. describe(label, programmed))
        else
          table.insert(ready, label)
        end
      end
    end
  end
end
-- Entries whose Accepted is from an older generation are left aside when another entry
-- speaks for the current one: a controller may never update (or remove) the entry of a
-- parentRef it no longer serves. With no current entry at all, the route waits for them.
if #ready == 0 and #pending == 0 then
  for _, text in ipairs(stale) do
    table.insert(pending, text)
  end
end

local missing = {}
if SPEC_REFS ~= "" and isMap(obj.spec) and isList(obj.spec[SPEC_REFS]) then
  for _, ref in ipairs(obj.spec[SPEC_REFS]) do
    if isMap(ref) and not reported[refKey(ref)] then
      table.insert(missing, refLabel(ref))
    end
  end
end
for _, label in ipairs(missing) do
  local verdict, text = noStatusVerdict(label)
  if verdict == "Degraded" then
    table.insert(failed, text)
  else
    table.insert(pending, text)
  end
end

if #failed > 0 then
  hs.status = "Degraded"
  hs.message = table.concat(failed, "; ")
  return hs
end
if #pending > 0 then
  hs.status = "Progressing"
  hs.message = table.concat(pending, "; ")
  return hs
end
hs.status = "Healthy"
hs.message = "accepted with resolved references by " .. table.concat(ready, ", ")
return hs
