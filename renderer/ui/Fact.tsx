export function Fact(props: { label: string; value: string; testId: string; title?: string | undefined }) {
  return (
    <div className="fact" data-testid={props.testId} title={props.title}>
      <dt>{props.label}</dt>
      <dd>{props.value}</dd>
    </div>
  );
}
