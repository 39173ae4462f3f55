import type { ProfileEntry, ServerState } from './ServerState.js';
import type { UiState } from './UiState.js';

/** Profiles in a stable, alphabetical order (the sidebar must not reshuffle as events arrive). */
export function profileList(profiles: ServerState['profiles']): ProfileEntry[] {
  return Object.values(profiles).sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * The profile the main pane shows: the user's choice while it exists, else the first running profile, else the
 * first one at all, so a fresh window lands somewhere useful.
 */
export function selectSelectedProfile(state: Pick<ServerState, 'profiles'> & Pick<UiState, 'selectedProfile'>): string | null {
  if (state.selectedProfile !== null && Object.hasOwn(state.profiles, state.selectedProfile)) {
    return state.selectedProfile;
  }
  const list = profileList(state.profiles);
  return (list.find((entry) => entry.state === 'ready') ?? list[0])?.name ?? null;
}
