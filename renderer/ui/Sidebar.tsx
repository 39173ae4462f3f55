import { useMemo } from 'react';
import { profileList, selectSelectedProfile } from '../state/selectProfiles.js';
import { AddExternalProfile } from './AddExternalProfile.js';
import { EmptyState } from './EmptyState.js';
import { ProfileItem } from './ProfileItem.js';
import { useTabmux } from './TabmuxContext.js';

export function Sidebar() {
  const profiles = useTabmux((state) => state.profiles);
  const loaded = useTabmux((state) => state.loaded);
  const selected = useTabmux(selectSelectedProfile);
  const list = useMemo(() => profileList(profiles), [profiles]);

  return (
    <nav className="sidebar" aria-label="Profiles" data-testid="sidebar">
      <div className="brand">
        <span className="brand-mark" aria-hidden="true" />
        tabmux
      </div>
      <h2 className="sidebar-title">Profiles</h2>
      {loaded && list.length === 0 && (
        <EmptyState testId="profiles-empty" title="No profiles yet" />
      )}
      <ul className="profile-list" data-testid="profile-list">
        {list.map((profile) => (
          <ProfileItem key={profile.name} profile={profile} selected={profile.name === selected} />
        ))}
      </ul>
      {loaded && <AddExternalProfile />}
    </nav>
  );
}
