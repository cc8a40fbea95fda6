-- routeguard health check for gateway.networking.k8s.io/Gateway (Argo CD resource
-- customization). Generated from lua-health/_templates/gateway.lua; edit the template.
--
-- Standard conditions only: status.conditions Accepted and Programmed must be True and
-- ResolvedRefs (when reported) True, and for every status.listeners[] entry Accepted and
-- Programmed must be True, ResolvedRefs (when reported) True and Conflicted (when
-- reported) not True; every spec.listeners[] entry must have a status entry. A condition
-- whose observedGeneration is older than metadata.generation does not count. Reason
-- Pending means "still working", not failure. Programmed=False is a failure only for the
-- reasons the Gateway API defines as one (Invalid, NoResources, AddressNotUsable); for
-- other reasons (AddressNotAssigned: an address not allocated yet, or an implementation's
-- own) the Gateway is Progressing, as in Argo CD's own check.
--
-- Time: a Gateway no controller has picked up (no status, or only the CRD's default
-- "Waiting for controller" conditions, which carry no observedGeneration) is Progressing
-- for WAIT_SECONDS after metadata.creationTimestamp and Degraded after that. The Flux CEL
-- twin (health.cel.yaml) has no clock and stays InProgress; Flux's timeout ends the wait.
local WAIT_SECONDS = 300
-- Argo CD's VM has no global os without open libraries; require returns its safe os
-- (time and date only).
local os = require("os")

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
local spec = obj.spec
if type(spec) ~= "table" then
  spec = {}
end
local className = str(spec.gatewayClassName, "(none)")

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

local function notPickedUp()
  local old = olderThanWait()
  if old == nil then
    return "Progressing", "waiting for the controller of GatewayClass " .. className .. " to pick up this Gateway (no creationTimestamp, so the " .. (WAIT_SECONDS / 60) .. "-minute wait cannot be measured)"
  end
  if old then
    return "Degraded", "no controller has picked up this Gateway " .. (WAIT_SECONDS / 60) .. " minutes after it was created: probably the GatewayClass " .. className .. " does not exist or its controller is not installed"
  end
  return "Progressing", "waiting for the controller of GatewayClass " .. className .. " to pick up this Gateway"
end

-- condition returns the first condition of a type when it counts for the current
-- generation, or nil and a reason it does not.
local function condition(conds, condType)
  local found = nil
  for _, c in ipairs(conds) do
    if found == nil and isMap(c) and c.type == condType then
      found = c
    end
  end
  if found == nil then
    return nil, condType .. " not reported"
  end
  local observed = tonumber(found.observedGeneration)
  if observed ~= nil and type(generation) == "number" and observed < generation then
    return nil, condType .. " was reported for generation " .. tostring(observed) .. ", the Gateway is at generation " .. tostring(generation)
  end
  return found, nil
end

local function describe(label, c)
  local text = label .. ": " .. c.type .. "=" .. str(c.status, "Unknown") .. " (" .. str(c.reason, "no reason") .. ")"
  if str(c.message, nil) ~= nil then
    text = text .. ": " .. str(c.message, "")
  end
  return text
end

local failed = {}
local pending = {}

-- Programmed=False reasons that mean failure rather than "not yet".
local PROGRAMMED_FAILED = { Invalid = true, NoResources = true, AddressNotUsable = true }

-- failure is true for a False condition that means failure.
local function failure(c)
  if c.status ~= "False" or c.reason == "Pending" then
    return false
  end
  if c.type == "Programmed" then
    return PROGRAMMED_FAILED[c.reason] == true
  end
  return true
end

-- check adds the verdict of one object's conditions (the Gateway or a listener).
local function check(label, conds, required, mustBeTrue, mustNotBeTrue)
  for _, condType in ipairs(required) do
    local c, why = condition(conds, condType)
    if c == nil then
      table.insert(pending, "waiting for " .. label .. ": " .. why)
    elseif failure(c) then
      table.insert(failed, describe(label, c))
    elseif c.status ~= "True" then
      table.insert(pending, "waiting for " .. describe(label, c))
    end
  end
  for _, condType in ipairs(mustBeTrue) do
    local c = condition(conds, condType)
    if c ~= nil and failure(c) then
      table.insert(failed, describe(label, c))
    elseif c ~= nil and c.status ~= "True" then
      table.insert(pending, "waiting for " .. describe(label, c))
    end
  end
  for _, condType in ipairs(mustNotBeTrue) do
    local c = condition(conds, condType)
    if c ~= nil and c.status == "True" then
      table.insert(failed, describe(label, c))
    end
  end
end

local status = obj.status
if status == nil then
  hs.status, hs.message = notPickedUp()
  return hs
end
if not isMap(status) then
  hs.status = "Degraded"
  hs.message = "Gateway status is malformed: expected an object, got " .. (isList(status) and "a list" or type(status))
  return hs
end
local conds = status.conditions
if conds == nil then
  conds = {}
end
local listeners = status.listeners
if listeners == nil then
  listeners = {}
end
if not isList(conds) or not isList(listeners) then
  hs.status = "Degraded"
  hs.message = "Gateway status is malformed: status.conditions and status.listeners must be lists"
  return hs
end

-- The CRD's default status: Accepted Pending without observedGeneration.
local pickedUp = false
for _, c in ipairs(conds) do
  if isMap(c) and c.type == "Accepted" and not (c.reason == "Pending" and c.observedGeneration == nil) then
    pickedUp = true
  end
end
if not pickedUp then
  hs.status, hs.message = notPickedUp()
  return hs
end

check("Gateway", conds, { "Accepted", "Programmed" }, { "ResolvedRefs" }, {})
local names = {}
local reported = {}
for i, l in ipairs(listeners) do
  if not isMap(l) then
    table.insert(failed, "Gateway status is malformed: status.listeners[" .. (i - 1) .. "] is not an object")
  else
    if type(l.name) == "string" then
      reported[l.name] = true
    end
    local label = "listener " .. str(l.name, "#" .. (i - 1))
    local lconds = l.conditions
    if lconds == nil then
      lconds = {}
    end
    if not isList(lconds) then
      table.insert(failed, label .. ": conditions is not a list")
    else
      check(label, lconds, { "Accepted", "Programmed" }, { "ResolvedRefs" }, { "Conflicted" })
      table.insert(names, str(l.name, "#" .. (i - 1)))
    end
  end
end

-- Every listener of the spec must have a status entry.
if isList(spec.listeners) then
  for _, sl in ipairs(spec.listeners) do
    if isMap(sl) and type(sl.name) == "string" and sl.name ~= "" and not reported[sl.name] then
      table.insert(pending, "waiting for listener " .. sl.name .. ": no status reported")
    end
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
if #names == 0 then
  hs.message = "Gateway accepted and programmed (no listener status reported)"
else
  hs.message = "Gateway accepted and programmed; listeners ready: " .. table.concat(names, ", ")
end
return hs
